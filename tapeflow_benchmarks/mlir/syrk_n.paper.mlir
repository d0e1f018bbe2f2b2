// syrk_n, preset paper (N=64, M=20).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/syrk_n.py, not this file.
func.func @syrk_n(%A: memref<?x?xf64>, %C: memref<?x?xf64>, %N: index, %M: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %N step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<?x?xf64>
      %scaled = arith.mulf %c, %beta : f64
      memref.store %scaled, %C[%i, %j] : memref<?x?xf64>
    }
    scf.for %k = %c0 to %M step %c1 {
      scf.for %j = %c0 to %ip1 step %c1 {
        %aik = memref.load %A[%i, %k] : memref<?x?xf64>
        %ajk = memref.load %A[%j, %k] : memref<?x?xf64>
        %p = arith.mulf %aik, %ajk : f64
        %ap = arith.mulf %alpha, %p : f64
        %c = memref.load %C[%i, %j] : memref<?x?xf64>
        %sum = arith.addf %c, %ap : f64
        memref.store %sum, %C[%i, %j] : memref<?x?xf64>
      }
    }
    %z = scf.for %j = %c0 to %ip1 step %c1 iter_args(%acc = %one) -> (f64) {
      %c = memref.load %C[%i, %j] : memref<?x?xf64>
      %act = math.sin %c : f64
      memref.store %act, %C[%i, %j] : memref<?x?xf64>
      %sq = arith.mulf %act, %act : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %root = math.sqrt %z : f64
    %r = arith.divf %one, %root : f64
    scf.for %j = %c0 to %ip1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<?x?xf64>
      %scaled = arith.mulf %c, %r : f64
      memref.store %scaled, %C[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

func.func @syrk_n_grad(%A: memref<?x?xf64>, %d_A: memref<?x?xf64>, %C: memref<?x?xf64>, %d_C: memref<?x?xf64>, %N: index, %M: index) {
  enzyme.autodiff @syrk_n(%A, %d_A, %C, %d_C, %N, %M) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, index, index) -> ()
  return
}
