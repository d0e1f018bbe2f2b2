// A 3-point stencil whose coefficients and gain are constant tables.
memref.global "private" constant @coef : memref<3xf64> = dense<[0.25, 0.5, 0.25]>
memref.global "private" constant @gain : memref<2xf64> = dense<1.5>
func.func @smooth(%x: memref<16xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %zero = arith.constant 0.0 : f64
  %k = memref.get_global @coef : memref<3xf64>
  %g = memref.get_global @gain : memref<2xf64>
  %k0 = memref.load %k[%c0] : memref<3xf64>
  %k1 = memref.load %k[%c1] : memref<3xf64>
  %k2 = memref.load %k[%c2] : memref<3xf64>
  %s = scf.for %i = %c1 to %c15 step %c1 iter_args(%acc = %zero) -> (f64) {
    %im = arith.subi %i, %c1 : index
    %ip = arith.addi %i, %c1 : index
    %a = memref.load %x[%im] : memref<16xf64>
    %b = memref.load %x[%i] : memref<16xf64>
    %c = memref.load %x[%ip] : memref<16xf64>
    %ta = arith.mulf %k0, %a : f64
    %tb = arith.mulf %k1, %b : f64
    %tc = arith.mulf %k2, %c : f64
    %s1 = arith.addf %ta, %tb : f64
    %s2 = arith.addf %s1, %tc : f64
    %gi = memref.load %g[%c1] : memref<2xf64>
    %s3 = arith.mulf %s2, %gi : f64
    %e = math.exp %s3 : f64
    %t = arith.mulf %e, %b : f64
    %n = arith.addf %acc, %t : f64
    scf.yield %n : f64
  }
  return %s : f64
}
func.func @smooth_grad(%x: memref<16xf64>, %d_x: memref<16xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @smooth(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<16xf64>, memref<16xf64>, f64) -> f64
  return %r : f64
}
