// A band of clamped bounds, max(1, i - 1) <= j < min(5, i + 2), as Soft-DTW's
// Sakoe-Chiba band (tapeflow_benchmarks/kernels/softdtw.py), already in regions.

func.func private @diffeg(%x: memref<5x5xf64>, %y: memref<5x5xf64>) attributes {
    tapeflow.gradient_of = @g, tapeflow.ret_activity = [],
    tapeflow.activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %a = region.alloc(%c5) : !region.region<4x?, [f64]>
  scf.for %i = %c1 to %c5 step %c1 {
    %im = arith.subi %i, %c1 : index
    %lo = arith.maxsi %im, %c1 : index
    %to = arith.addi %i, %c2 : index
    %hi = arith.minsi %to, %c5 : index
    scf.for %j = %lo to %hi step %c1 {
      %o = arith.subi %j, %lo : index
      %v = memref.load %x[%i, %j] : memref<5x5xf64>
      region.store %v, %a[%im, %o] slot 0 id 0 : f64, !region.region<4x?, [f64]>
    }
  }
  scf.for %u = %c0 to %c4 step %c1 {
    %i = arith.subi %c4, %u : index
    %im = arith.subi %i, %c1 : index
    %from = arith.subi %i, %c1 : index
    %lo = arith.maxsi %c1, %from : index
    %to = arith.addi %i, %c2 : index
    %hi = arith.minsi %to, %c5 : index
    scf.for %w = %lo to %hi step %c1 {
      %last = arith.subi %hi, %c1 : index
      %o = arith.subi %last, %w : index
      %j = arith.addi %o, %lo : index
      %v = region.load %a[%im, %o] slot 0 from 0 : !region.region<4x?, [f64]> -> f64
      memref.store %v, %y[%i, %j] : memref<5x5xf64>
    }
  }
  region.free %a : !region.region<4x?, [f64]>
  func.return
}
