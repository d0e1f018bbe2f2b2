// A loop-carried recurrence whose values Enzyme caches in a tensor
// (`enzyme.cache_use_tensor`), after the scf.for tests of Enzyme-MLIR
// (enzyme/test/MLIR/ReverseMode/scf_for.mlir: a square-then-cosine recurrence
// marked with the attribute), here over a memref of weights in f64.
func.func @k(%w: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %start = arith.constant 0.5 : f64
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%s = %start) -> (f64) {
    %wi = memref.load %w[%i] : memref<8xf64>
    %sq = arith.mulf %s, %s : f64
    %t = arith.mulf %sq, %wi : f64
    %c = math.cos %t : f64
    scf.yield %c : f64
  } {enzyme.cache_use_tensor}
  return %r : f64
}
func.func @k_grad(%w: memref<8xf64>, %dw: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%w, %dw, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  return %r : f64
}
