// A dot product and its gradient, for the memory-map tests: REV writes d_x[i] and
// d_y[i] in turn, so buffers 1 KiB apart share the sets of a direct-mapped 1 KiB cache.
func.func @dot(%x: memref<16xf64>, %y: memref<16xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<16xf64>
    %yi = memref.load %y[%i] : memref<16xf64>
    %p = arith.mulf %xi, %yi : f64
    %q = arith.addf %a, %p : f64
    scf.yield %q : f64
  }
  return %s : f64
}
func.func @dot_grad(%x: memref<16xf64>, %d_x: memref<16xf64>, %y: memref<16xf64>, %d_y: memref<16xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @dot(%x, %d_x, %y, %d_y, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, f64) -> f64
  return %r : f64
}
