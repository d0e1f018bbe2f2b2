// A gradient at the Enzyme-gradient stage, as tapeflow-enzyme leaves one: FWD
// caches x[i]*x[i] in %cache (Enzyme's struct-of-arrays buffer), REV reads the
// cache back in the inverse order. Used by the passes' stage tests.
func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %cache = memref.alloc() : memref<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %sq = arith.mulf %v, %v : f64
    memref.store %sq, %cache[%i] : memref<4xf64>
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %j : index
    %w = memref.load %cache[%r] : memref<4xf64>
    %g = arith.mulf %seed, %w : f64
    memref.store %g, %dx[%r] : memref<4xf64>
  }
  memref.dealloc %cache : memref<4xf64>
  func.return
}
