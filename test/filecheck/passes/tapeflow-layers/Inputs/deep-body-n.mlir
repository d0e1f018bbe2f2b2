// A region-stage gradient's shape (the regions as tapeflow-regions leaves them)
// with loops bounded by an argument %n: FWD stores, in each iteration, a chain of
// 40 values (x_i, then the sine of the one before) in one region, more than a
// straight-line layer holds; REV reads them back in the inverse order into a
// chain of its own, s = sin(s + a_k) from k = 39 down to 0.
func.func private @diffef(%x: memref<?xf64>, %dx: memref<?xf64>, %seed: f64, %n: index) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = region.alloc(%n) : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  scf.for %i = %c0 to %n step %c1 {
    %a0 = memref.load %x[%i] : memref<?xf64>
    region.store %a0, %t[%i] slot 0 id 0 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a1 = math.sin %a0 : f64
    region.store %a1, %t[%i] slot 1 id 1 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a2 = math.sin %a1 : f64
    region.store %a2, %t[%i] slot 2 id 2 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a3 = math.sin %a2 : f64
    region.store %a3, %t[%i] slot 3 id 3 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a4 = math.sin %a3 : f64
    region.store %a4, %t[%i] slot 4 id 4 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a5 = math.sin %a4 : f64
    region.store %a5, %t[%i] slot 5 id 5 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a6 = math.sin %a5 : f64
    region.store %a6, %t[%i] slot 6 id 6 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a7 = math.sin %a6 : f64
    region.store %a7, %t[%i] slot 7 id 7 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a8 = math.sin %a7 : f64
    region.store %a8, %t[%i] slot 8 id 8 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a9 = math.sin %a8 : f64
    region.store %a9, %t[%i] slot 9 id 9 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a10 = math.sin %a9 : f64
    region.store %a10, %t[%i] slot 10 id 10 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a11 = math.sin %a10 : f64
    region.store %a11, %t[%i] slot 11 id 11 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a12 = math.sin %a11 : f64
    region.store %a12, %t[%i] slot 12 id 12 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a13 = math.sin %a12 : f64
    region.store %a13, %t[%i] slot 13 id 13 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a14 = math.sin %a13 : f64
    region.store %a14, %t[%i] slot 14 id 14 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a15 = math.sin %a14 : f64
    region.store %a15, %t[%i] slot 15 id 15 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a16 = math.sin %a15 : f64
    region.store %a16, %t[%i] slot 16 id 16 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a17 = math.sin %a16 : f64
    region.store %a17, %t[%i] slot 17 id 17 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a18 = math.sin %a17 : f64
    region.store %a18, %t[%i] slot 18 id 18 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a19 = math.sin %a18 : f64
    region.store %a19, %t[%i] slot 19 id 19 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a20 = math.sin %a19 : f64
    region.store %a20, %t[%i] slot 20 id 20 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a21 = math.sin %a20 : f64
    region.store %a21, %t[%i] slot 21 id 21 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a22 = math.sin %a21 : f64
    region.store %a22, %t[%i] slot 22 id 22 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a23 = math.sin %a22 : f64
    region.store %a23, %t[%i] slot 23 id 23 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a24 = math.sin %a23 : f64
    region.store %a24, %t[%i] slot 24 id 24 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a25 = math.sin %a24 : f64
    region.store %a25, %t[%i] slot 25 id 25 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a26 = math.sin %a25 : f64
    region.store %a26, %t[%i] slot 26 id 26 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a27 = math.sin %a26 : f64
    region.store %a27, %t[%i] slot 27 id 27 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a28 = math.sin %a27 : f64
    region.store %a28, %t[%i] slot 28 id 28 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a29 = math.sin %a28 : f64
    region.store %a29, %t[%i] slot 29 id 29 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a30 = math.sin %a29 : f64
    region.store %a30, %t[%i] slot 30 id 30 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a31 = math.sin %a30 : f64
    region.store %a31, %t[%i] slot 31 id 31 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a32 = math.sin %a31 : f64
    region.store %a32, %t[%i] slot 32 id 32 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a33 = math.sin %a32 : f64
    region.store %a33, %t[%i] slot 33 id 33 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a34 = math.sin %a33 : f64
    region.store %a34, %t[%i] slot 34 id 34 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a35 = math.sin %a34 : f64
    region.store %a35, %t[%i] slot 35 id 35 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a36 = math.sin %a35 : f64
    region.store %a36, %t[%i] slot 36 id 36 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a37 = math.sin %a36 : f64
    region.store %a37, %t[%i] slot 37 id 37 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a38 = math.sin %a37 : f64
    region.store %a38, %t[%i] slot 38 id 38 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a39 = math.sin %a38 : f64
    region.store %a39, %t[%i] slot 39 id 39 : f64, !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  }
  %last = arith.subi %n, %c1 : index
  scf.for %r = %c0 to %n step %c1 {
    %i = arith.subi %last, %r : index
    %a39 = region.load %t[%i] slot 39 from 39 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u39 = arith.addf %seed, %a39 : f64
    %s39 = math.sin %u39 : f64
    %a38 = region.load %t[%i] slot 38 from 38 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u38 = arith.addf %s39, %a38 : f64
    %s38 = math.sin %u38 : f64
    %a37 = region.load %t[%i] slot 37 from 37 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u37 = arith.addf %s38, %a37 : f64
    %s37 = math.sin %u37 : f64
    %a36 = region.load %t[%i] slot 36 from 36 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u36 = arith.addf %s37, %a36 : f64
    %s36 = math.sin %u36 : f64
    %a35 = region.load %t[%i] slot 35 from 35 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u35 = arith.addf %s36, %a35 : f64
    %s35 = math.sin %u35 : f64
    %a34 = region.load %t[%i] slot 34 from 34 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u34 = arith.addf %s35, %a34 : f64
    %s34 = math.sin %u34 : f64
    %a33 = region.load %t[%i] slot 33 from 33 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u33 = arith.addf %s34, %a33 : f64
    %s33 = math.sin %u33 : f64
    %a32 = region.load %t[%i] slot 32 from 32 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u32 = arith.addf %s33, %a32 : f64
    %s32 = math.sin %u32 : f64
    %a31 = region.load %t[%i] slot 31 from 31 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u31 = arith.addf %s32, %a31 : f64
    %s31 = math.sin %u31 : f64
    %a30 = region.load %t[%i] slot 30 from 30 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u30 = arith.addf %s31, %a30 : f64
    %s30 = math.sin %u30 : f64
    %a29 = region.load %t[%i] slot 29 from 29 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u29 = arith.addf %s30, %a29 : f64
    %s29 = math.sin %u29 : f64
    %a28 = region.load %t[%i] slot 28 from 28 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u28 = arith.addf %s29, %a28 : f64
    %s28 = math.sin %u28 : f64
    %a27 = region.load %t[%i] slot 27 from 27 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u27 = arith.addf %s28, %a27 : f64
    %s27 = math.sin %u27 : f64
    %a26 = region.load %t[%i] slot 26 from 26 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u26 = arith.addf %s27, %a26 : f64
    %s26 = math.sin %u26 : f64
    %a25 = region.load %t[%i] slot 25 from 25 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u25 = arith.addf %s26, %a25 : f64
    %s25 = math.sin %u25 : f64
    %a24 = region.load %t[%i] slot 24 from 24 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u24 = arith.addf %s25, %a24 : f64
    %s24 = math.sin %u24 : f64
    %a23 = region.load %t[%i] slot 23 from 23 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u23 = arith.addf %s24, %a23 : f64
    %s23 = math.sin %u23 : f64
    %a22 = region.load %t[%i] slot 22 from 22 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u22 = arith.addf %s23, %a22 : f64
    %s22 = math.sin %u22 : f64
    %a21 = region.load %t[%i] slot 21 from 21 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u21 = arith.addf %s22, %a21 : f64
    %s21 = math.sin %u21 : f64
    %a20 = region.load %t[%i] slot 20 from 20 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u20 = arith.addf %s21, %a20 : f64
    %s20 = math.sin %u20 : f64
    %a19 = region.load %t[%i] slot 19 from 19 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u19 = arith.addf %s20, %a19 : f64
    %s19 = math.sin %u19 : f64
    %a18 = region.load %t[%i] slot 18 from 18 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u18 = arith.addf %s19, %a18 : f64
    %s18 = math.sin %u18 : f64
    %a17 = region.load %t[%i] slot 17 from 17 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u17 = arith.addf %s18, %a17 : f64
    %s17 = math.sin %u17 : f64
    %a16 = region.load %t[%i] slot 16 from 16 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u16 = arith.addf %s17, %a16 : f64
    %s16 = math.sin %u16 : f64
    %a15 = region.load %t[%i] slot 15 from 15 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u15 = arith.addf %s16, %a15 : f64
    %s15 = math.sin %u15 : f64
    %a14 = region.load %t[%i] slot 14 from 14 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u14 = arith.addf %s15, %a14 : f64
    %s14 = math.sin %u14 : f64
    %a13 = region.load %t[%i] slot 13 from 13 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u13 = arith.addf %s14, %a13 : f64
    %s13 = math.sin %u13 : f64
    %a12 = region.load %t[%i] slot 12 from 12 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u12 = arith.addf %s13, %a12 : f64
    %s12 = math.sin %u12 : f64
    %a11 = region.load %t[%i] slot 11 from 11 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u11 = arith.addf %s12, %a11 : f64
    %s11 = math.sin %u11 : f64
    %a10 = region.load %t[%i] slot 10 from 10 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u10 = arith.addf %s11, %a10 : f64
    %s10 = math.sin %u10 : f64
    %a9 = region.load %t[%i] slot 9 from 9 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u9 = arith.addf %s10, %a9 : f64
    %s9 = math.sin %u9 : f64
    %a8 = region.load %t[%i] slot 8 from 8 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u8 = arith.addf %s9, %a8 : f64
    %s8 = math.sin %u8 : f64
    %a7 = region.load %t[%i] slot 7 from 7 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u7 = arith.addf %s8, %a7 : f64
    %s7 = math.sin %u7 : f64
    %a6 = region.load %t[%i] slot 6 from 6 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u6 = arith.addf %s7, %a6 : f64
    %s6 = math.sin %u6 : f64
    %a5 = region.load %t[%i] slot 5 from 5 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u5 = arith.addf %s6, %a5 : f64
    %s5 = math.sin %u5 : f64
    %a4 = region.load %t[%i] slot 4 from 4 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u4 = arith.addf %s5, %a4 : f64
    %s4 = math.sin %u4 : f64
    %a3 = region.load %t[%i] slot 3 from 3 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u3 = arith.addf %s4, %a3 : f64
    %s3 = math.sin %u3 : f64
    %a2 = region.load %t[%i] slot 2 from 2 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u2 = arith.addf %s3, %a2 : f64
    %s2 = math.sin %u2 : f64
    %a1 = region.load %t[%i] slot 1 from 1 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u1 = arith.addf %s2, %a1 : f64
    %s1 = math.sin %u1 : f64
    %a0 = region.load %t[%i] slot 0 from 0 : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %u0 = arith.addf %s1, %a0 : f64
    %s0 = math.sin %u0 : f64
    memref.store %s0, %dx[%i] : memref<?xf64>
  }
  region.free %t : !region.region<?, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  func.return
}
