// The first loop nest of PolyBench's atax as Polygeist emits it (scf.for over
// memrefs: tmp[i] = sum_j A[i][j] * x[j]), made nonlinear (a product-sum
// recurrence in the row, tanh of each row) so that Enzyme caches values of the
// inner loop, with both loops marked `enzyme.cache_use_tensor`: the inner loop's
// tensor cache goes into the outer one's with tensor.insert_slice and comes back
// out with tensor.extract_slice in the reverse sweep. (atax's second nest,
// y[j] += A[i][j] * tmp[i], writes a buffer inside the tensor-cached loop, which
// Enzyme-MLIR 0.0.16 rejects: see docs/tools.md, known upstream limitations.)
func.func @k(%A: memref<4x5xf64>, %x: memref<5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f64
  %total = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %c0 to %c5 step %c1 iter_args(%t = %zero) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<4x5xf64>
      %xj = memref.load %x[%j] : memref<5xf64>
      %p = arith.mulf %a, %xj : f64
      %q = arith.mulf %p, %t : f64
      %u = arith.addf %q, %p : f64
      scf.yield %u : f64
    } {enzyme.cache_use_tensor}
    %h = math.tanh %row : f64
    %acc2 = arith.addf %acc, %h : f64
    scf.yield %acc2 : f64
  } {enzyme.cache_use_tensor}
  return %total : f64
}
func.func @k_grad(%A: memref<4x5xf64>, %dA: memref<4x5xf64>, %x: memref<5xf64>, %dx: memref<5xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%A, %dA, %x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4x5xf64>, memref<4x5xf64>, memref<5xf64>, memref<5xf64>, f64) -> f64
  return %r : f64
}
