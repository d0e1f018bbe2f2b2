// syr2k, preset small (N=5, M=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/syr2k.py, not this file.
func.func @syr2k(%A: memref<5x3xf64>, %B: memref<5x3xf64>, %C: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c5 step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<5x5xf64>
      %scaled = arith.mulf %c, %beta : f64
      memref.store %scaled, %C[%i, %j] : memref<5x5xf64>
    }
    scf.for %k = %c0 to %c3 step %c1 {
      scf.for %j = %c0 to %ip1 step %c1 {
        %ajk = memref.load %A[%j, %k] : memref<5x3xf64>
        %bik = memref.load %B[%i, %k] : memref<5x3xf64>
        %bjk = memref.load %B[%j, %k] : memref<5x3xf64>
        %aik = memref.load %A[%i, %k] : memref<5x3xf64>
        %a1 = arith.mulf %ajk, %alpha : f64
        %p1 = arith.mulf %a1, %bik : f64
        %b1 = arith.mulf %bjk, %alpha : f64
        %p2 = arith.mulf %b1, %aik : f64
        %u = arith.addf %p1, %p2 : f64
        %c = memref.load %C[%i, %j] : memref<5x5xf64>
        %sum = arith.addf %c, %u : f64
        memref.store %sum, %C[%i, %j] : memref<5x5xf64>
      }
    }
  }
  return
}

func.func @syr2k_grad(%A: memref<5x3xf64>, %d_A: memref<5x3xf64>, %B: memref<5x3xf64>, %d_B: memref<5x3xf64>, %C: memref<5x5xf64>, %d_C: memref<5x5xf64>) {
  enzyme.autodiff @syr2k(%A, %d_A, %B, %d_B, %C, %d_C) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x3xf64>, memref<5x3xf64>, memref<5x3xf64>, memref<5x3xf64>, memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
