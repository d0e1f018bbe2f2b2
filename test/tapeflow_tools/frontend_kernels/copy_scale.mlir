// Source: Enzyme-MLIR's reverse-mode memref tests (enzyme/test/MLIR/ReverseMode/
// memref.mlir, memcpy.mlir). `memref.copy` in MLIR's custom form, here in the
// caller, which copies its input into a scratch buffer that the differentiated
// kernel then scales in place (Enzyme 0.0.16 cannot differentiate memref.copy
// itself: copy_not_differentiable.mlir). The kernel returns
// sum_i exp(t[i] / 2) * t[i].
func.func @scale_sum(%t: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant 5.000000e-01 : f64
  %zero = arith.constant 0.000000e+00 : f64
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %t[%i] : memref<8xf64>
    %h = arith.mulf %v, %half : f64
    memref.store %h, %t[%i] : memref<8xf64>
    %e = math.exp %h : f64
    %p = arith.mulf %e, %v : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  return %s : f64
}

func.func @scale_sum_grad(%x: memref<8xf64>, %dx: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.000000e+00 : f64
  %t = memref.alloc() : memref<8xf64>
  memref.copy %x, %t : memref<8xf64> to memref<8xf64>
  %r = enzyme.autodiff @scale_sum(%t, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  memref.dealloc %t : memref<8xf64>
  return %r : f64
}
