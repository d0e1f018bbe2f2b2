// A triangular nest as PolyBench's syrk writes it (linear-algebra/blas/syrk:
// `for i < n; for j <= i; for k < m: C[i][j] += alpha * A[i][k] * A[j][k]`),
// here with the upper triangle (j from i+1 to n, as in covariance/correlation),
// a nonlinear update (C[i][j] += A[i][k] * A[j][k] * C[i][j]) so that Enzyme
// caches C, and n a run-time argument with buffers of dynamic shape.
func.func @tri(%A: memref<?x4xf64>, %C: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %n step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %ip1 to %n step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %a = memref.load %A[%i, %k] : memref<?x4xf64>
        %b = memref.load %A[%j, %k] : memref<?x4xf64>
        %c = memref.load %C[%i, %j] : memref<?x?xf64>
        %p = arith.mulf %a, %b : f64
        %q = arith.mulf %p, %c : f64
        %s = arith.addf %c, %q : f64
        memref.store %s, %C[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}
func.func @tri_grad(%A: memref<?x4xf64>, %dA: memref<?x4xf64>, %C: memref<?x?xf64>, %dC: memref<?x?xf64>, %n: index) {
  enzyme.autodiff @tri(%A, %dA, %C, %dC, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x4xf64>, memref<?x4xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}
