// Region-stage gradient with a tape stored inside scf.index_switch (a branch the
// pass does not layer): that region is kept, the other one is layered.
func.func private @diffef(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %u = region.alloc : !region.region<8, [f64]>
  %s = region.alloc : !region.region<8, [f64]>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    region.store %v, %u[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
    %k = arith.remui %i, %c2 : index
    scf.index_switch %k
    case 0 {
      %w = arith.mulf %v, %v : f64
      region.store %w, %s[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
      scf.yield
    }
    default {
      scf.yield
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.subi %c7, %i : index
    %v = region.load %u[%r] slot 0 from 0 : !region.region<8, [f64]> -> f64
    %k = arith.remui %r, %c2 : index
    %g = scf.index_switch %k -> f64
    case 0 {
      %w = region.load %s[%r] slot 0 from 0 : !region.region<8, [f64]> -> f64
      scf.yield %w : f64
    }
    default {
      scf.yield %seed : f64
    }
    %h = arith.mulf %g, %v : f64
    memref.store %h, %dx[%r] : memref<8xf64>
  }
  region.free %s : !region.region<8, [f64]>
  region.free %u : !region.region<8, [f64]>
  func.return
}
