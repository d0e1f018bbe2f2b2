// A kernel with a helper that is neither a gradient nor calls one (data for cases).
memref.global "private" constant @weights : memref<4xf64> = dense<[0.5, -1.0, 2.0, 0.25]>
func.func @scale(%x: f64) -> f64 {
  %c = arith.constant 2.0 : f64
  %r = arith.mulf %x, %c : f64
  return %r : f64
}
func.func @dot(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %w = memref.get_global @weights : memref<4xf64>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<4xf64>
    %wi = memref.load %w[%i] : memref<4xf64>
    %p = arith.mulf %xi, %wi : f64
    %e = math.exp %p : f64
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  %r = func.call @scale(%s) : (f64) -> f64
  return %r : f64
}
func.func @dot_grad(%x: memref<4xf64>, %d_x: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @dot(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
