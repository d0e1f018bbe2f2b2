// syrk_tri, preset paper (N=48, M=24).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/syrk_tri.py, not this file.
func.func @syrk_tri(%A: memref<48x24xf64>, %C: memref<48x48xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %c48 = arith.constant 48 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c48 step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<48x48xf64>
      %scaled = arith.mulf %c, %beta : f64
      memref.store %scaled, %C[%i, %j] : memref<48x48xf64>
    }
    scf.for %k = %c0 to %c24 step %c1 {
      scf.for %j = %c0 to %ip1 step %c1 {
        %aik = memref.load %A[%i, %k] : memref<48x24xf64>
        %ajk = memref.load %A[%j, %k] : memref<48x24xf64>
        %p = arith.mulf %aik, %ajk : f64
        %ap = arith.mulf %alpha, %p : f64
        %c = memref.load %C[%i, %j] : memref<48x48xf64>
        %sum = arith.addf %c, %ap : f64
        memref.store %sum, %C[%i, %j] : memref<48x48xf64>
      }
    }
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<48x48xf64>
      %act = math.sin %c : f64
      memref.store %act, %C[%i, %j] : memref<48x48xf64>
    }
  }
  return
}

func.func @syrk_tri_grad(%A: memref<48x24xf64>, %d_A: memref<48x24xf64>, %C: memref<48x48xf64>, %d_C: memref<48x48xf64>) {
  enzyme.autodiff @syrk_tri(%A, %d_A, %C, %d_C) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<48x24xf64>, memref<48x24xf64>, memref<48x48xf64>, memref<48x48xf64>) -> ()
  return
}
