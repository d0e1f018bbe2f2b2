// PolyBench's 2mm-style row loop as Polygeist emits it (an outer scf.for over
// rows, an inner reduction over a row), with only the inner loop marked
// `enzyme.cache_use_tensor` (the attribute of Enzyme-MLIR's
// enzyme/test/MLIR/ReverseMode/scf_for.mlir): the outer loop caches in Enzyme's
// memref mode, so each row's tensor cache is itself cached, as a value, in a
// memref of tensors (memref<3xtensor<4xf64>>) that the reverse sweep loads.
func.func @k(%A: memref<3x4xf64>, %x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %total = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %c0 to %c4 step %c1 iter_args(%t = %acc) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<3x4xf64>
      %xj = memref.load %x[%j] : memref<4xf64>
      %p = arith.mulf %a, %xj : f64
      %s = math.sin %p : f64
      %u = arith.mulf %s, %t : f64
      %v = arith.addf %u, %p : f64
      scf.yield %v : f64
    } {enzyme.cache_use_tensor}
    %h = math.tanh %row : f64
    scf.yield %h : f64
  }
  return %total : f64
}
func.func @k_grad(%A: memref<3x4xf64>, %dA: memref<3x4xf64>, %x: memref<4xf64>, %dx: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%A, %dA, %x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<3x4xf64>, memref<3x4xf64>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
