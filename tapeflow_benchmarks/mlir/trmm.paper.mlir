// trmm, preset paper (M=32, N=24).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/trmm.py, not this file.
func.func @trmm(%A: memref<32x32xf64>, %B: memref<32x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %alpha = arith.constant 1.5 : f64
  scf.for %i = %c0 to %c32 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %c24 step %c1 {
      scf.for %k = %i1 to %c32 step %c1 {
        %a = memref.load %A[%k, %i] : memref<32x32xf64>
        %bk = memref.load %B[%k, %j] : memref<32x24xf64>
        %p = arith.mulf %a, %bk : f64
        %bi = memref.load %B[%i, %j] : memref<32x24xf64>
        %sum = arith.addf %bi, %p : f64
        memref.store %sum, %B[%i, %j] : memref<32x24xf64>
      }
      %bi = memref.load %B[%i, %j] : memref<32x24xf64>
      %scaled = arith.mulf %alpha, %bi : f64
      memref.store %scaled, %B[%i, %j] : memref<32x24xf64>
    }
  }
  return
}

func.func @trmm_grad(%A: memref<32x32xf64>, %d_A: memref<32x32xf64>, %B: memref<32x24xf64>, %d_B: memref<32x24xf64>) {
  enzyme.autodiff @trmm(%A, %d_A, %B, %d_B) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x32xf64>, memref<32x32xf64>, memref<32x24xf64>, memref<32x24xf64>) -> ()
  return
}
