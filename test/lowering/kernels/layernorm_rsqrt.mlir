// Layer normalization as Flax computes it (flax.linen.LayerNorm: mean, variance
// `mean(x^2) - mean^2`, then `(x - mean) * jax.lax.rsqrt(var + eps) * scale +
// bias`), over the rows of a 2 x 5 activation: the sums carried together, both
// initialised by 0, and math.rsqrt. Written anew.
func.func @f(%x: memref<2x5xf64>, %scale: memref<5xf64>, %bias: memref<5xf64>, %y: memref<2x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 5.0 : f64
  %eps = arith.constant 1.0e-6 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    %s:2 = scf.for %j = %c0 to %c5 step %c1 iter_args(%sum = %zero, %sq = %zero) -> (f64, f64) {
      %v = memref.load %x[%i, %j] : memref<2x5xf64>
      %v2 = arith.mulf %v, %v : f64
      %sum2 = arith.addf %sum, %v : f64
      %sq2 = arith.addf %sq, %v2 : f64
      scf.yield %sum2, %sq2 : f64, f64
    }
    %mean = arith.divf %s#0, %n : f64
    %meansq = arith.divf %s#1, %n : f64
    %m2 = arith.mulf %mean, %mean : f64
    %var = arith.subf %meansq, %m2 : f64
    %ve = arith.addf %var, %eps : f64
    %inv = math.rsqrt %ve : f64
    scf.for %j = %c0 to %c5 step %c1 {
      %v = memref.load %x[%i, %j] : memref<2x5xf64>
      %g = memref.load %scale[%j] : memref<5xf64>
      %b = memref.load %bias[%j] : memref<5xf64>
      %d = arith.subf %v, %mean : f64
      %nd = arith.mulf %d, %inv : f64
      %gd = arith.mulf %nd, %g : f64
      %out = arith.addf %gd, %b : f64
      memref.store %out, %y[%i, %j] : memref<2x5xf64>
    }
  }
  return
}
func.func @f_grad(%x: memref<2x5xf64>, %dx: memref<2x5xf64>, %scale: memref<5xf64>, %dscale: memref<5xf64>, %bias: memref<5xf64>, %dbias: memref<5xf64>, %y: memref<2x5xf64>, %dy: memref<2x5xf64>) {
  enzyme.autodiff @f(%x, %dx, %scale, %dscale, %bias, %dbias, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<2x5xf64>, memref<2x5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<2x5xf64>, memref<2x5xf64>) -> ()
  return
}
