// A kernel reading a constant table of weights (data for the cases here).
memref.global "private" constant @weights : memref<8xf64> = dense<[0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.125]>
func.func @dot(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %w = memref.get_global @weights : memref<8xf64>
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<8xf64>
    %wi = memref.load %w[%i] : memref<8xf64>
    %p = arith.mulf %xi, %wi : f64
    %e = math.sin %p : f64
    %t = arith.mulf %e, %xi : f64
    %n = arith.addf %acc, %t : f64
    scf.yield %n : f64
  }
  return %s : f64
}
func.func @dot_grad(%x: memref<8xf64>, %d_x: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @dot(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  return %r : f64
}
