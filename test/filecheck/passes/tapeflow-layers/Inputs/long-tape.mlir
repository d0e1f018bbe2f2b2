// Region-stage gradient of y = sum_i sin(x_i) * x_i over 8192 values (the
// regions as tapeflow-regions leaves them): each iteration stores x_i and
// sin(x_i) in one region; REV reads them back in the inverse order.
func.func private @diffef(%x: memref<8192xf64>, %dx: memref<8192xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 8192 : index
  %clast = arith.constant 8191 : index
  %t = region.alloc : !region.region<8192, [f64, f64]>
  scf.for %i = %c0 to %cn step %c1 {
    %a = memref.load %x[%i] : memref<8192xf64>
    %s = math.sin %a : f64
    region.store %a, %t[%i] slot 0 id 0 : f64, !region.region<8192, [f64, f64]>
    region.store %s, %t[%i] slot 1 id 1 : f64, !region.region<8192, [f64, f64]>
  }
  scf.for %r = %c0 to %cn step %c1 {
    %i = arith.subi %clast, %r : index
    %a = region.load %t[%i] slot 0 from 0 : !region.region<8192, [f64, f64]> -> f64
    %s = region.load %t[%i] slot 1 from 1 : !region.region<8192, [f64, f64]> -> f64
    %c = math.cos %a : f64
    %p = arith.mulf %c, %a : f64
    %q = arith.addf %p, %s : f64
    %g = arith.mulf %q, %seed : f64
    memref.store %g, %dx[%i] : memref<8192xf64>
  }
  region.free %t : !region.region<8192, [f64, f64]>
  func.return
}
