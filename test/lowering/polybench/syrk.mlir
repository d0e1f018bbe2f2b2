// PolyBench/C 4.2 syrk (linear-algebra/blas/syrk): C = alpha A A^T + beta C on the
// lower triangle, `for i; for j <= i: C *= beta`, `for k; for j <= i: C += ...`.
// alpha = 1.5, beta = 1.2 as PolyBench's init_array sets them. Written anew in
// scf, N = 5, M = 3.
func.func @f(%C: memref<5x5xf64>, %A: memref<5x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant 5 : index
  %cM = arith.constant 3 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %cN step %c1 {
    %i1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %i1 step %c1 {
      %c = memref.load %C[%i, %j] : memref<5x5xf64>
      %s = arith.mulf %c, %beta : f64
      memref.store %s, %C[%i, %j] : memref<5x5xf64>
    }
    scf.for %k = %c0 to %cM step %c1 {
      scf.for %j = %c0 to %i1 step %c1 {
        %a = memref.load %A[%i, %k] : memref<5x3xf64>
        %b = memref.load %A[%j, %k] : memref<5x3xf64>
        %c = memref.load %C[%i, %j] : memref<5x5xf64>
        %p = arith.mulf %alpha, %a : f64
        %q = arith.mulf %p, %b : f64
        %s = arith.addf %c, %q : f64
        memref.store %s, %C[%i, %j] : memref<5x5xf64>
      }
    }
  }
  return
}
func.func @f_grad(%C: memref<5x5xf64>, %dC: memref<5x5xf64>, %A: memref<5x3xf64>, %dA: memref<5x3xf64>) {
  enzyme.autodiff @f(%C, %dC, %A, %dA) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x5xf64>, memref<5x5xf64>, memref<5x3xf64>, memref<5x3xf64>) -> ()
  return
}
