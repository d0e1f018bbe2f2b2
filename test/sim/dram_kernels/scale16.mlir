// sum_i exp(t[i] / 2) * t[i], overwriting t[i] with t[i] / 2 (as
// test/tapeflow_tools/frontend_kernels/copy_scale.mlir, on 16 doubles: two
// 64 B lines). Enzyme must keep the 16 values it overwrites: a 128 B tape.
func.func @scale16(%t: memref<16xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %half = arith.constant 5.000000e-01 : f64
  %zero = arith.constant 0.000000e+00 : f64
  %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %t[%i] : memref<16xf64>
    %h = arith.mulf %v, %half : f64
    memref.store %h, %t[%i] : memref<16xf64>
    %e = math.exp %h : f64
    %p = arith.mulf %e, %v : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  return %s : f64
}

func.func @scale16_grad(%x: memref<16xf64>, %dx: memref<16xf64>) -> f64 {
  %seed = arith.constant 1.000000e+00 : f64
  %r = enzyme.autodiff @scale16(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<16xf64>, memref<16xf64>, f64) -> f64
  return %r : f64
}
