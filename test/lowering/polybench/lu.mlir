// PolyBench/C 4.2 lu (linear-algebra/solvers/lu): in-place LU decomposition
// without pivoting, `for i; for j < i; for k < j` then `for j >= i; for k < i`.
// The first nest is three deep and triangular twice over (j < i, k < j): Enzyme
// caches A's loads in a buffer of buffers of buffers
// (memref<5xmemref<?xmemref<?xf64>>>). Written anew in scf, N = 5.
func.func @f(%A: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 5 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        %a = memref.load %A[%i, %k] : memref<5x5xf64>
        %b = memref.load %A[%k, %j] : memref<5x5xf64>
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
    scf.for %j = %i to %c4 step %c1 {
      scf.for %k = %c0 to %i step %c1 {
        %a = memref.load %A[%i, %k] : memref<5x5xf64>
        %b = memref.load %A[%k, %j] : memref<5x5xf64>
        %c = memref.load %A[%i, %j] : memref<5x5xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.subf %c, %p : f64
        memref.store %s, %A[%i, %j] : memref<5x5xf64>
      }
    }
  }
  return
}
func.func @f_grad(%A: memref<5x5xf64>, %dA: memref<5x5xf64>) {
  enzyme.autodiff @f(%A, %dA) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
