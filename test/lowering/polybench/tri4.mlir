// A four-deep nest triangular at every level, `for i; for j < i; for k < j;
// for l < k`, shaped like PolyBench/C 4.2 lu's update with a fourth index
// (A[i][j] -= A[i][l] * A[l][k] * A[k][j], in place): Enzyme caches the loads in
// a buffer of buffers of buffers of buffers. Written for this test, N = 5.
func.func @f(%A: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant 5 : index
  %half = arith.constant 0.5 : f64
  scf.for %i = %c0 to %cN step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        scf.for %l = %c0 to %k step %c1 {
          %a = memref.load %A[%i, %l] : memref<5x5xf64>
          %b = memref.load %A[%l, %k] : memref<5x5xf64>
          %e = memref.load %A[%k, %j] : memref<5x5xf64>
          %c = memref.load %A[%i, %j] : memref<5x5xf64>
          %p = arith.mulf %a, %b : f64
          %q = arith.mulf %p, %e : f64
          %r = arith.mulf %q, %half : f64
          %s = arith.subf %c, %r : f64
          memref.store %s, %A[%i, %j] : memref<5x5xf64>
        }
      }
    }
  }
  return
}
func.func @f_grad(%A: memref<5x5xf64>, %dA: memref<5x5xf64>) {
  enzyme.autodiff @f(%A, %dA) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
