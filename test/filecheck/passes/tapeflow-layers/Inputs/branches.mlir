// Region-stage gradient with tapes under branches (as tapeflow-regions leaves it):
// region %u stored unconditionally, %c under the branch taken when x[i] > 0; REV
// tests the condition on the value it read back from %u (the value Enzyme cached)
// and reads %c only under it.
func.func private @diffef(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %u = region.alloc : !region.region<8, [f64]>
  %c = region.alloc : !region.region<8, [f64, i1]>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    region.store %v, %u[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
    %p = arith.cmpf ogt, %v, %zero : f64
    scf.if %p {
      %w = arith.mulf %v, %v : f64
      %q = arith.cmpf olt, %w, %v : f64
      region.store %w, %c[%i] slot 0 id 0 : f64, !region.region<8, [f64, i1]>
      region.store %q, %c[%i] slot 1 id 1 : i1, !region.region<8, [f64, i1]>
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.subi %c7, %i : index
    %v = region.load %u[%r] slot 0 from 0 : !region.region<8, [f64]> -> f64
    %p = arith.cmpf ogt, %v, %zero : f64
    scf.if %p {
      %w = region.load %c[%r] slot 0 from 0 : !region.region<8, [f64, i1]> -> f64
      %q = region.load %c[%r] slot 1 from 1 : !region.region<8, [f64, i1]> -> i1
      %s = arith.select %q, %w, %seed : f64
      memref.store %s, %dx[%r] : memref<8xf64>
    }
  }
  region.free %c : !region.region<8, [f64, i1]>
  region.free %u : !region.region<8, [f64]>
  func.return
}
