// syrk_tri, preset small (N=8, M=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/syrk_tri.py, not this file.
func.func @syrk_tri(%A: memref<8x4xf64>, %C: memref<8x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<8x8xf64>
      %scaled = arith.mulf %c, %beta : f64
      memref.store %scaled, %C[%i, %j] : memref<8x8xf64>
    }
    scf.for %k = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %ip1 step %c1 {
        %aik = memref.load %A[%i, %k] : memref<8x4xf64>
        %ajk = memref.load %A[%j, %k] : memref<8x4xf64>
        %p = arith.mulf %aik, %ajk : f64
        %ap = arith.mulf %alpha, %p : f64
        %c = memref.load %C[%i, %j] : memref<8x8xf64>
        %sum = arith.addf %c, %ap : f64
        memref.store %sum, %C[%i, %j] : memref<8x8xf64>
      }
    }
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<8x8xf64>
      %act = math.sin %c : f64
      memref.store %act, %C[%i, %j] : memref<8x8xf64>
    }
  }
  return
}

func.func @syrk_tri_grad(%A: memref<8x4xf64>, %d_A: memref<8x4xf64>, %C: memref<8x8xf64>, %d_C: memref<8x8xf64>) {
  enzyme.autodiff @syrk_tri(%A, %d_A, %C, %d_C) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<8x8xf64>, memref<8x8xf64>) -> ()
  return
}
