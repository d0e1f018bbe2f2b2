// PolyBench/C 4.2 gramschmidt (linear-algebra/solvers/gramschmidt): QR by
// modified Gram-Schmidt, `for k; for j = k+1 .. N; for i < M`: a triangular nest
// with rectangular loops inside, A updated in place. PolyBench's `R[k][j] = 0`
// then `R[k][j] += ...` is accumulated in a scalar and stored once (the same
// values). Written anew in scf, M = 4, N = 3.
func.func @f(%A: memref<4x3xf64>, %R: memref<3x3xf64>, %Q: memref<4x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cM = arith.constant 4 : index
  %cN = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  scf.for %k = %c0 to %cN step %c1 {
    %nrm = scf.for %i = %c0 to %cM step %c1 iter_args(%acc = %zero) -> (f64) {
      %a = memref.load %A[%i, %k] : memref<4x3xf64>
      %sq = arith.mulf %a, %a : f64
      %s = arith.addf %acc, %sq : f64
      scf.yield %s : f64
    }
    %rkk = math.sqrt %nrm : f64
    memref.store %rkk, %R[%k, %k] : memref<3x3xf64>
    scf.for %i = %c0 to %cM step %c1 {
      %a = memref.load %A[%i, %k] : memref<4x3xf64>
      %r = memref.load %R[%k, %k] : memref<3x3xf64>
      %q = arith.divf %a, %r : f64
      memref.store %q, %Q[%i, %k] : memref<4x3xf64>
    }
    %k1 = arith.addi %k, %c1 : index
    scf.for %j = %k1 to %cN step %c1 {
      %rkj = scf.for %i = %c0 to %cM step %c1 iter_args(%acc = %zero) -> (f64) {
        %q = memref.load %Q[%i, %k] : memref<4x3xf64>
        %a = memref.load %A[%i, %j] : memref<4x3xf64>
        %p = arith.mulf %q, %a : f64
        %s = arith.addf %acc, %p : f64
        scf.yield %s : f64
      }
      memref.store %rkj, %R[%k, %j] : memref<3x3xf64>
      scf.for %i = %c0 to %cM step %c1 {
        %a = memref.load %A[%i, %j] : memref<4x3xf64>
        %q = memref.load %Q[%i, %k] : memref<4x3xf64>
        %r = memref.load %R[%k, %j] : memref<3x3xf64>
        %p = arith.mulf %q, %r : f64
        %s = arith.subf %a, %p : f64
        memref.store %s, %A[%i, %j] : memref<4x3xf64>
      }
    }
  }
  return
}
func.func @f_grad(%A: memref<4x3xf64>, %dA: memref<4x3xf64>, %R: memref<3x3xf64>, %dR: memref<3x3xf64>, %Q: memref<4x3xf64>, %dQ: memref<4x3xf64>) {
  enzyme.autodiff @f(%A, %dA, %R, %dR, %Q, %dQ) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<4x3xf64>, memref<4x3xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<4x3xf64>, memref<4x3xf64>) -> ()
  return
}
