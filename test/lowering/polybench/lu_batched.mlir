// A four-deep nest, three levels triangular: PolyBench/C 4.2 lu
// (linear-algebra/solvers/lu) applied to each matrix of a batch, `for b; for i;
// for j < i; for k < j` (batched factorizations, as batched BLAS/LAPACK run
// them). Enzyme caches A's loads per batch, per i, per j. Written anew in scf,
// 2 matrices of 4x4.
func.func @f(%A: memref<2x4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cN = arith.constant 4 : index
  scf.for %b = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %cN step %c1 {
      scf.for %j = %c0 to %i step %c1 {
        scf.for %k = %c0 to %j step %c1 {
          %a = memref.load %A[%b, %i, %k] : memref<2x4x4xf64>
          %e = memref.load %A[%b, %k, %j] : memref<2x4x4xf64>
          %c = memref.load %A[%b, %i, %j] : memref<2x4x4xf64>
          %p = arith.mulf %a, %e : f64
          %s = arith.subf %c, %p : f64
          memref.store %s, %A[%b, %i, %j] : memref<2x4x4xf64>
        }
        %x = memref.load %A[%b, %i, %j] : memref<2x4x4xf64>
        %d = memref.load %A[%b, %j, %j] : memref<2x4x4xf64>
        %q = arith.divf %x, %d : f64
        memref.store %q, %A[%b, %i, %j] : memref<2x4x4xf64>
      }
      scf.for %j = %i to %cN step %c1 {
        scf.for %k = %c0 to %i step %c1 {
          %a = memref.load %A[%b, %i, %k] : memref<2x4x4xf64>
          %e = memref.load %A[%b, %k, %j] : memref<2x4x4xf64>
          %c = memref.load %A[%b, %i, %j] : memref<2x4x4xf64>
          %p = arith.mulf %a, %e : f64
          %s = arith.subf %c, %p : f64
          memref.store %s, %A[%b, %i, %j] : memref<2x4x4xf64>
        }
      }
    }
  }
  return
}
func.func @f_grad(%A: memref<2x4x4xf64>, %dA: memref<2x4x4xf64>) {
  enzyme.autodiff @f(%A, %dA) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<2x4x4xf64>, memref<2x4x4xf64>) -> ()
  return
}
