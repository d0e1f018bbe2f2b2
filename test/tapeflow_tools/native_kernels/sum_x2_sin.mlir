// A user's gradient at the Enzyme stage: f(x) = sum_i x[i]^2 * sin(x[i]), and its
// caller, which takes the shadow d_x (zero-filled by tapeflow-run when the inputs
// leave it out) and the seed, and returns f(x); d_x gets seed * f'(x).
func.func @f(%x: memref<6xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c6 step %c1 iter_args(%a = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<6xf64>
    %sq = arith.mulf %xi, %xi : f64
    %sn = math.sin %xi : f64
    %t = arith.mulf %sq, %sn : f64
    %p = arith.addf %a, %t : f64
    scf.yield %p : f64
  }
  return %s : f64
}
func.func @f_grad(%x: memref<6xf64>, %d_x: memref<6xf64>, %seed: f64) -> f64 {
  %r = enzyme.autodiff @f(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<6xf64>, memref<6xf64>, f64) -> f64
  return %r : f64
}
