// PolyBench/C 4.2 cholesky (linear-algebra/solvers/cholesky): in-place Cholesky
// factor of a symmetric positive-definite A, `for i; for j < i; for k < j`, then
// `for k < i` and a square root: a three-deep triangular nest. Written anew in
// scf, N = 5.
func.func @f(%A: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant 5 : index
  scf.for %i = %c0 to %cN step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        %a = memref.load %A[%i, %k] : memref<5x5xf64>
        %b = memref.load %A[%j, %k] : memref<5x5xf64>
        %c = memref.load %A[%i, %j] : memref<5x5xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.subf %c, %p : f64
        memref.store %s, %A[%i, %j] : memref<5x5xf64>
      }
      %x = memref.load %A[%i, %j] : memref<5x5xf64>
      %d = memref.load %A[%j, %j] : memref<5x5xf64>
      %q = arith.divf %x, %d : f64
      memref.store %q, %A[%i, %j] : memref<5x5xf64>
    }
    scf.for %k = %c0 to %i step %c1 {
      %a = memref.load %A[%i, %k] : memref<5x5xf64>
      %c = memref.load %A[%i, %i] : memref<5x5xf64>
      %p = arith.mulf %a, %a : f64
      %s = arith.subf %c, %p : f64
      memref.store %s, %A[%i, %i] : memref<5x5xf64>
    }
    %v = memref.load %A[%i, %i] : memref<5x5xf64>
    %r = math.sqrt %v : f64
    memref.store %r, %A[%i, %i] : memref<5x5xf64>
  }
  return
}
func.func @f_grad(%A: memref<5x5xf64>, %dA: memref<5x5xf64>) {
  enzyme.autodiff @f(%A, %dA) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
