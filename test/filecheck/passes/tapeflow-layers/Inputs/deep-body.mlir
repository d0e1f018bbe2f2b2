// A region-stage gradient's shape (the regions as tapeflow-regions leaves them):
// FWD stores, in each of 1024 iterations, a chain of 40 values (x_i, then the sine
// of the one before) in one region, more than a straight-line layer holds; REV
// reads them back in the inverse order and sums their cosines.
func.func private @diffef(%x: memref<1024xf64>, %dx: memref<1024xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 1024 : index
  %clast = arith.constant 1023 : index
  %t = region.alloc : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  scf.for %i = %c0 to %cn step %c1 {
    %a0 = memref.load %x[%i] : memref<1024xf64>
    region.store %a0, %t[%i] slot 0 id 0 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a1 = math.sin %a0 : f64
    region.store %a1, %t[%i] slot 1 id 1 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a2 = math.sin %a1 : f64
    region.store %a2, %t[%i] slot 2 id 2 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a3 = math.sin %a2 : f64
    region.store %a3, %t[%i] slot 3 id 3 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a4 = math.sin %a3 : f64
    region.store %a4, %t[%i] slot 4 id 4 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a5 = math.sin %a4 : f64
    region.store %a5, %t[%i] slot 5 id 5 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a6 = math.sin %a5 : f64
    region.store %a6, %t[%i] slot 6 id 6 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a7 = math.sin %a6 : f64
    region.store %a7, %t[%i] slot 7 id 7 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a8 = math.sin %a7 : f64
    region.store %a8, %t[%i] slot 8 id 8 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a9 = math.sin %a8 : f64
    region.store %a9, %t[%i] slot 9 id 9 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a10 = math.sin %a9 : f64
    region.store %a10, %t[%i] slot 10 id 10 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a11 = math.sin %a10 : f64
    region.store %a11, %t[%i] slot 11 id 11 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a12 = math.sin %a11 : f64
    region.store %a12, %t[%i] slot 12 id 12 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a13 = math.sin %a12 : f64
    region.store %a13, %t[%i] slot 13 id 13 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a14 = math.sin %a13 : f64
    region.store %a14, %t[%i] slot 14 id 14 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a15 = math.sin %a14 : f64
    region.store %a15, %t[%i] slot 15 id 15 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a16 = math.sin %a15 : f64
    region.store %a16, %t[%i] slot 16 id 16 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a17 = math.sin %a16 : f64
    region.store %a17, %t[%i] slot 17 id 17 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a18 = math.sin %a17 : f64
    region.store %a18, %t[%i] slot 18 id 18 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a19 = math.sin %a18 : f64
    region.store %a19, %t[%i] slot 19 id 19 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a20 = math.sin %a19 : f64
    region.store %a20, %t[%i] slot 20 id 20 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a21 = math.sin %a20 : f64
    region.store %a21, %t[%i] slot 21 id 21 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a22 = math.sin %a21 : f64
    region.store %a22, %t[%i] slot 22 id 22 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a23 = math.sin %a22 : f64
    region.store %a23, %t[%i] slot 23 id 23 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a24 = math.sin %a23 : f64
    region.store %a24, %t[%i] slot 24 id 24 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a25 = math.sin %a24 : f64
    region.store %a25, %t[%i] slot 25 id 25 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a26 = math.sin %a25 : f64
    region.store %a26, %t[%i] slot 26 id 26 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a27 = math.sin %a26 : f64
    region.store %a27, %t[%i] slot 27 id 27 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a28 = math.sin %a27 : f64
    region.store %a28, %t[%i] slot 28 id 28 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a29 = math.sin %a28 : f64
    region.store %a29, %t[%i] slot 29 id 29 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a30 = math.sin %a29 : f64
    region.store %a30, %t[%i] slot 30 id 30 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a31 = math.sin %a30 : f64
    region.store %a31, %t[%i] slot 31 id 31 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a32 = math.sin %a31 : f64
    region.store %a32, %t[%i] slot 32 id 32 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a33 = math.sin %a32 : f64
    region.store %a33, %t[%i] slot 33 id 33 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a34 = math.sin %a33 : f64
    region.store %a34, %t[%i] slot 34 id 34 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a35 = math.sin %a34 : f64
    region.store %a35, %t[%i] slot 35 id 35 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a36 = math.sin %a35 : f64
    region.store %a36, %t[%i] slot 36 id 36 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a37 = math.sin %a36 : f64
    region.store %a37, %t[%i] slot 37 id 37 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a38 = math.sin %a37 : f64
    region.store %a38, %t[%i] slot 38 id 38 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
    %a39 = math.sin %a38 : f64
    region.store %a39, %t[%i] slot 39 id 39 : f64, !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  }
  scf.for %r = %c0 to %cn step %c1 {
    %i = arith.subi %clast, %r : index
    %a0 = region.load %t[%i] slot 0 from 0 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g0 = math.cos %a0 : f64
    %a1 = region.load %t[%i] slot 1 from 1 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g1 = math.cos %a1 : f64
    %a2 = region.load %t[%i] slot 2 from 2 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g2 = math.cos %a2 : f64
    %a3 = region.load %t[%i] slot 3 from 3 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g3 = math.cos %a3 : f64
    %a4 = region.load %t[%i] slot 4 from 4 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g4 = math.cos %a4 : f64
    %a5 = region.load %t[%i] slot 5 from 5 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g5 = math.cos %a5 : f64
    %a6 = region.load %t[%i] slot 6 from 6 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g6 = math.cos %a6 : f64
    %a7 = region.load %t[%i] slot 7 from 7 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g7 = math.cos %a7 : f64
    %a8 = region.load %t[%i] slot 8 from 8 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g8 = math.cos %a8 : f64
    %a9 = region.load %t[%i] slot 9 from 9 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g9 = math.cos %a9 : f64
    %a10 = region.load %t[%i] slot 10 from 10 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g10 = math.cos %a10 : f64
    %a11 = region.load %t[%i] slot 11 from 11 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g11 = math.cos %a11 : f64
    %a12 = region.load %t[%i] slot 12 from 12 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g12 = math.cos %a12 : f64
    %a13 = region.load %t[%i] slot 13 from 13 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g13 = math.cos %a13 : f64
    %a14 = region.load %t[%i] slot 14 from 14 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g14 = math.cos %a14 : f64
    %a15 = region.load %t[%i] slot 15 from 15 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g15 = math.cos %a15 : f64
    %a16 = region.load %t[%i] slot 16 from 16 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g16 = math.cos %a16 : f64
    %a17 = region.load %t[%i] slot 17 from 17 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g17 = math.cos %a17 : f64
    %a18 = region.load %t[%i] slot 18 from 18 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g18 = math.cos %a18 : f64
    %a19 = region.load %t[%i] slot 19 from 19 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g19 = math.cos %a19 : f64
    %a20 = region.load %t[%i] slot 20 from 20 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g20 = math.cos %a20 : f64
    %a21 = region.load %t[%i] slot 21 from 21 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g21 = math.cos %a21 : f64
    %a22 = region.load %t[%i] slot 22 from 22 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g22 = math.cos %a22 : f64
    %a23 = region.load %t[%i] slot 23 from 23 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g23 = math.cos %a23 : f64
    %a24 = region.load %t[%i] slot 24 from 24 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g24 = math.cos %a24 : f64
    %a25 = region.load %t[%i] slot 25 from 25 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g25 = math.cos %a25 : f64
    %a26 = region.load %t[%i] slot 26 from 26 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g26 = math.cos %a26 : f64
    %a27 = region.load %t[%i] slot 27 from 27 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g27 = math.cos %a27 : f64
    %a28 = region.load %t[%i] slot 28 from 28 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g28 = math.cos %a28 : f64
    %a29 = region.load %t[%i] slot 29 from 29 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g29 = math.cos %a29 : f64
    %a30 = region.load %t[%i] slot 30 from 30 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g30 = math.cos %a30 : f64
    %a31 = region.load %t[%i] slot 31 from 31 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g31 = math.cos %a31 : f64
    %a32 = region.load %t[%i] slot 32 from 32 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g32 = math.cos %a32 : f64
    %a33 = region.load %t[%i] slot 33 from 33 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g33 = math.cos %a33 : f64
    %a34 = region.load %t[%i] slot 34 from 34 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g34 = math.cos %a34 : f64
    %a35 = region.load %t[%i] slot 35 from 35 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g35 = math.cos %a35 : f64
    %a36 = region.load %t[%i] slot 36 from 36 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g36 = math.cos %a36 : f64
    %a37 = region.load %t[%i] slot 37 from 37 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g37 = math.cos %a37 : f64
    %a38 = region.load %t[%i] slot 38 from 38 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g38 = math.cos %a38 : f64
    %a39 = region.load %t[%i] slot 39 from 39 : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]> -> f64
    %g39 = math.cos %a39 : f64
    %s1 = arith.addf %g0, %g1 : f64
    %s2 = arith.addf %s1, %g2 : f64
    %s3 = arith.addf %s2, %g3 : f64
    %s4 = arith.addf %s3, %g4 : f64
    %s5 = arith.addf %s4, %g5 : f64
    %s6 = arith.addf %s5, %g6 : f64
    %s7 = arith.addf %s6, %g7 : f64
    %s8 = arith.addf %s7, %g8 : f64
    %s9 = arith.addf %s8, %g9 : f64
    %s10 = arith.addf %s9, %g10 : f64
    %s11 = arith.addf %s10, %g11 : f64
    %s12 = arith.addf %s11, %g12 : f64
    %s13 = arith.addf %s12, %g13 : f64
    %s14 = arith.addf %s13, %g14 : f64
    %s15 = arith.addf %s14, %g15 : f64
    %s16 = arith.addf %s15, %g16 : f64
    %s17 = arith.addf %s16, %g17 : f64
    %s18 = arith.addf %s17, %g18 : f64
    %s19 = arith.addf %s18, %g19 : f64
    %s20 = arith.addf %s19, %g20 : f64
    %s21 = arith.addf %s20, %g21 : f64
    %s22 = arith.addf %s21, %g22 : f64
    %s23 = arith.addf %s22, %g23 : f64
    %s24 = arith.addf %s23, %g24 : f64
    %s25 = arith.addf %s24, %g25 : f64
    %s26 = arith.addf %s25, %g26 : f64
    %s27 = arith.addf %s26, %g27 : f64
    %s28 = arith.addf %s27, %g28 : f64
    %s29 = arith.addf %s28, %g29 : f64
    %s30 = arith.addf %s29, %g30 : f64
    %s31 = arith.addf %s30, %g31 : f64
    %s32 = arith.addf %s31, %g32 : f64
    %s33 = arith.addf %s32, %g33 : f64
    %s34 = arith.addf %s33, %g34 : f64
    %s35 = arith.addf %s34, %g35 : f64
    %s36 = arith.addf %s35, %g36 : f64
    %s37 = arith.addf %s36, %g37 : f64
    %s38 = arith.addf %s37, %g38 : f64
    %s39 = arith.addf %s38, %g39 : f64
    %d = arith.mulf %s39, %seed : f64
    memref.store %d, %dx[%i] : memref<1024xf64>
  }
  region.free %t : !region.region<1024, [f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64]>
  func.return
}
