// A gradient whose only cache is a snapshot (memref.copy, as Enzyme's
// checkpointing writes one): nothing to raise, but Enzyme did save values.
func.func @f(%x: memref<4xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  func.return %z : f64
}

func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) -> f64 attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %snap = memref.alloc() : memref<4xf64>
  memref.copy %x, %snap : memref<4xf64> to memref<4xf64>
  memref.store %zero, %x[%c0] : memref<4xf64>
  %v = memref.load %snap[%c0] : memref<4xf64>
  %g = arith.mulf %seed, %v : f64
  memref.store %g, %dx[%c0] : memref<4xf64>
  memref.dealloc %snap : memref<4xf64>
  func.return %zero : f64
}
