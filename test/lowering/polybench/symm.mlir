// PolyBench/C 4.2 symm (linear-algebra/blas/symm): C = alpha A B + beta C with A
// symmetric (its lower triangle read), `for i; for j; for k < i`, temp2 in a
// scalar. alpha = 1.5, beta = 1.2 as PolyBench's init_array sets them. Written
// anew in scf, M = 5, N = 3.
func.func @f(%C: memref<5x3xf64>, %A: memref<5x5xf64>, %B: memref<5x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cM = arith.constant 5 : index
  %cN = arith.constant 3 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %cM step %c1 {
    scf.for %j = %c0 to %cN step %c1 {
      %bij = memref.load %B[%i, %j] : memref<5x3xf64>
      %abij = arith.mulf %alpha, %bij : f64
      %temp2 = scf.for %k = %c0 to %i step %c1 iter_args(%t = %zero) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<5x5xf64>
        %ckj = memref.load %C[%k, %j] : memref<5x3xf64>
        %u = arith.mulf %abij, %aik : f64
        %v = arith.addf %ckj, %u : f64
        memref.store %v, %C[%k, %j] : memref<5x3xf64>
        %bkj = memref.load %B[%k, %j] : memref<5x3xf64>
        %w = arith.mulf %bkj, %aik : f64
        %t2 = arith.addf %t, %w : f64
        scf.yield %t2 : f64
      }
      %cij = memref.load %C[%i, %j] : memref<5x3xf64>
      %aii = memref.load %A[%i, %i] : memref<5x5xf64>
      %x0 = arith.mulf %beta, %cij : f64
      %x1 = arith.mulf %abij, %aii : f64
      %x2 = arith.mulf %alpha, %temp2 : f64
      %x3 = arith.addf %x0, %x1 : f64
      %x4 = arith.addf %x3, %x2 : f64
      memref.store %x4, %C[%i, %j] : memref<5x3xf64>
    }
  }
  return
}
func.func @f_grad(%C: memref<5x3xf64>, %dC: memref<5x3xf64>, %A: memref<5x5xf64>, %dA: memref<5x5xf64>, %B: memref<5x3xf64>, %dB: memref<5x3xf64>) {
  enzyme.autodiff @f(%C, %dC, %A, %dA, %B, %dB) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x3xf64>, memref<5x3xf64>, memref<5x5xf64>, memref<5x5xf64>, memref<5x3xf64>, memref<5x3xf64>) -> ()
  return
}
