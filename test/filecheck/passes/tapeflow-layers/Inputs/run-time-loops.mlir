// Region-stage gradient with loops bounded by an argument %n (hand-written in
// the shape tapeflow-raise-tape and tapeflow-regions give Enzyme's output).
// Region %a: FWD stores at [i], REV reads at [n - 1 - u]: a mirror for every n.
// Region %b: REV reads at [u], the order FWD wrote them: no mirror.
func.func private @diffeg(%x: memref<?xf64>, %dx: memref<?xf64>, %n: index) attributes {tapeflow.gradient_of = @g, tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], tapeflow.ret_activity = []} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = region.alloc(%n) : !region.region<?, [f64, f64]>
  %b = region.alloc(%n) : !region.region<?, [f64]>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = math.sin %v : f64
    region.store %v, %a[%i] slot 0 id 0 : f64, !region.region<?, [f64, f64]>
    region.store %w, %a[%i] slot 1 id 1 : f64, !region.region<?, [f64, f64]>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    region.store %v, %b[%i] slot 0 id 0 : f64, !region.region<?, [f64]>
  }
  scf.for %u = %c0 to %n step %c1 {
    %v = region.load %b[%u] slot 0 from 0 : !region.region<?, [f64]> -> f64
    memref.store %v, %dx[%u] : memref<?xf64>
  }
  scf.for %u = %c0 to %n step %c1 {
    %last = arith.subi %n, %c1 : index
    %j = arith.subi %last, %u : index
    %v = region.load %a[%j] slot 0 from 0 : !region.region<?, [f64, f64]> -> f64
    %w = region.load %a[%j] slot 1 from 1 : !region.region<?, [f64, f64]> -> f64
    %p = arith.mulf %v, %w : f64
    %d = memref.load %dx[%j] : memref<?xf64>
    %s = arith.addf %d, %p : f64
    memref.store %s, %dx[%j] : memref<?xf64>
  }
  region.free %b : !region.region<?, [f64]>
  region.free %a : !region.region<?, [f64, f64]>
  func.return
}
