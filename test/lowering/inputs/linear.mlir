// A linear kernel: Enzyme needs no value from FWD, so its gradient has no tape.
func.func @k(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<4xf64>
    %p = arith.addf %a, %xi : f64
    scf.yield %p : f64
  }
  return %s : f64
}
func.func @k_grad(%x: memref<4xf64>, %d_x: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
