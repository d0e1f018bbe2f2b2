// A user's kernel for the sweep example (docs/sweeps.md): a chain of softplus
// units, each fed by the previous one, f(x, w) = a_N with
//   a_0 = 0,  a_{i+1} = log(1 + exp(w[i] * x[i] + a_i / 2)).
// The recurrence is nonlinear, so Enzyme's gradient keeps a tape (the values
// REV needs from each step). @chain_grad is the caller: x is duplicated (its
// shadow dx receives the gradient), w is constant, the result is active with a
// seed of 1.
func.func @chain(%x: memref<32xf64>, %w: memref<32xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %a = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<32xf64>
    %wi = memref.load %w[%i] : memref<32xf64>
    %p = arith.mulf %wi, %xi : f64
    %h = arith.mulf %acc, %half : f64
    %t = arith.addf %p, %h : f64
    %e = math.exp %t : f64
    %s = arith.addf %one, %e : f64
    %next = math.log %s : f64
    scf.yield %next : f64
  }
  return %a : f64
}

func.func @chain_grad(%x: memref<32xf64>, %dx: memref<32xf64>, %w: memref<32xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @chain(%x, %dx, %w, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<32xf64>, memref<32xf64>, memref<32xf64>, f64) -> f64
  return %r : f64
}
