// Region-stage gradient (what tapeflow-regions makes): loop A stores two values per
// iteration over 8 iterations; loop B stores nine per iteration over 2 iterations.
// REV runs B's mirror, then A's, each reversed.
func.func private @diffef(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %a = region.alloc : !region.region<8, [f64, f64]>
  %b = region.alloc : !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %w = arith.mulf %v, %v : f64
    region.store %v, %a[%i] slot 0 id 0 : f64, !region.region<8, [f64, f64]>
    region.store %w, %a[%i] slot 1 id 1 : f64, !region.region<8, [f64, f64]>
  }
  scf.for %j = %c0 to %c2 step %c1 {
    %v = memref.load %x[%j] : memref<8xf64>
    region.store %v, %b[%j] slot 0 id 0 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 1 id 1 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 2 id 2 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 3 id 3 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 4 id 4 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 5 id 5 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 6 id 6 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    region.store %v, %b[%j] slot 7 id 7 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %u = arith.addf %v, %v : f64
    region.store %u, %b[%j] slot 8 id 8 : f64, !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  }
  scf.for %j = %c0 to %c2 step %c1 {
    %r = arith.subi %c1, %j : index
    %p = region.load %b[%r] slot 0 from 0 : !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %q = region.load %b[%r] slot 8 from 8 : !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %s = arith.addf %p, %q : f64
    %t = region.load %b[%r] slot 4 from 4 : !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g = arith.mulf %s, %t : f64
    memref.store %g, %dx[%r] : memref<8xf64>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.subi %c7, %i : index
    %v = region.load %a[%r] slot 0 from 0 : !region.region<8, [f64, f64]> -> f64
    %w = region.load %a[%r] slot 1 from 1 : !region.region<8, [f64, f64]> -> f64
    %g = arith.mulf %v, %w : f64
    %h = arith.mulf %g, %seed : f64
    %old = memref.load %dx[%r] : memref<8xf64>
    %new = arith.addf %old, %h : f64
    memref.store %new, %dx[%r] : memref<8xf64>
  }
  region.free %b : !region.region<2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  region.free %a : !region.region<8, [f64, f64]>
  func.return
}
