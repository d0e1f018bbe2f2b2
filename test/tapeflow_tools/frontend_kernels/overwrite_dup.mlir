// A known upstream limitation of Enzyme-MLIR 0.0.16 (seen on its own mincut tests,
// enzyme/test/MLIR/ReverseMode/scf_for_mincut*.mlir): a location of an enzyme_dup
// buffer overwritten by a constant keeps its shadow seed. Here f = x0*x1 + x0', where
// x0' = 0 is the overwritten x[0]; df/dx0 = x1, but Enzyme adds the adjoint of the
// load of x0' (1.0) to the shadow of x[0] and never clears it: it reports x1 + 1.
func.func @f(%x: memref<2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %a = memref.load %x[%c0] : memref<2xf64>
  %b = memref.load %x[%c1] : memref<2xf64>
  %p = arith.mulf %a, %b : f64
  memref.store %zero, %x[%c0] : memref<2xf64>
  %c = memref.load %x[%c0] : memref<2xf64>
  %r = arith.addf %p, %c : f64
  return %r : f64
}
func.func @f_grad(%x: memref<2xf64>, %dx: memref<2xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<2xf64>, memref<2xf64>, f64) -> f64
  return %r : f64
}
