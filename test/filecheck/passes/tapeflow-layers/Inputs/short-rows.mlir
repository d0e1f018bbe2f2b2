// Region-stage gradient of y = seed * sum_ik x_ik^2 over 32 rows of 4 (the regions
// as tapeflow-regions leaves them): each row's short inner loop stores x_ik; REV
// reads the rows back in the inverse order, nothing but index arithmetic between.
func.func private @diffef(%x: memref<32x4xf64>, %dx: memref<32x4xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %t = region.alloc : !region.region<32x4, [f64]>
  scf.for %i = %c0 to %c32 step %c1 {
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %k] : memref<32x4xf64>
      region.store %v, %t[%i, %k] slot 0 id 0 : f64, !region.region<32x4, [f64]>
    }
  }
  scf.for %r = %c0 to %c32 step %c1 {
    %i = arith.subi %c31, %r : index
    scf.for %q = %c0 to %c4 step %c1 {
      %k = arith.subi %c3, %q : index
      %v = region.load %t[%i, %k] slot 0 from 0 : !region.region<32x4, [f64]> -> f64
      %d = arith.mulf %v, %seed : f64
      memref.store %d, %dx[%i, %k] : memref<32x4xf64>
    }
  }
  region.free %t : !region.region<32x4, [f64]>
  func.return
}
