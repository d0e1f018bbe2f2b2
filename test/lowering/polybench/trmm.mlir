// PolyBench/C 4.2 trmm (linear-algebra/blas/trmm): B = alpha A^T B with A unit
// lower triangular, `for i; for j; for k = i+1 .. M: B[i][j] += A[k][i] * B[k][j]`,
// then `B[i][j] *= alpha`: a triangular innermost loop under a rectangular one.
// alpha = 1.5 as PolyBench's init_array sets it. Written anew in scf, M = 5, N = 3.
func.func @f(%A: memref<5x5xf64>, %B: memref<5x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cM = arith.constant 5 : index
  %cN = arith.constant 3 : index
  %alpha = arith.constant 1.5 : f64
  scf.for %i = %c0 to %cM step %c1 {
    %i1 = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %cN step %c1 {
      scf.for %k = %i1 to %cM step %c1 {
        %a = memref.load %A[%k, %i] : memref<5x5xf64>
        %b = memref.load %B[%k, %j] : memref<5x3xf64>
        %c = memref.load %B[%i, %j] : memref<5x3xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        memref.store %s, %B[%i, %j] : memref<5x3xf64>
      }
      %v = memref.load %B[%i, %j] : memref<5x3xf64>
      %w = arith.mulf %alpha, %v : f64
      memref.store %w, %B[%i, %j] : memref<5x3xf64>
    }
  }
  return
}
func.func @f_grad(%A: memref<5x5xf64>, %dA: memref<5x5xf64>, %B: memref<5x3xf64>, %dB: memref<5x3xf64>) {
  enzyme.autodiff @f(%A, %dA, %B, %dB) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x5xf64>, memref<5x5xf64>, memref<5x3xf64>, memref<5x3xf64>) -> ()
  return
}
