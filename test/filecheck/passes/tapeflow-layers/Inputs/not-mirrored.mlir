// REV reads the region forwards: its tiles would not come back as a stack.
func.func private @diffef(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = region.alloc : !region.region<8, [f64]>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    region.store %v, %a[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = region.load %a[%i] slot 0 from 0 : !region.region<8, [f64]> -> f64
    memref.store %v, %dx[%i] : memref<8xf64>
  }
  region.free %a : !region.region<8, [f64]>
  func.return
}
