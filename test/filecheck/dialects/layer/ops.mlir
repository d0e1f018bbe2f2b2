// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// A FWD layer and its REV partner over tiles of one region, strip-mined.
// CHECK-LABEL: func.func @layers
// CHECK:      layer.layer 0 fwd partner 1 {
// CHECK-NEXT:   %{{.*}} = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
// CHECK:        layer.barrier
// CHECK-NEXT: }
// CHECK:      %{{.*}} = layer.layer 1 rev partner 0 -> f64 {
// CHECK-NEXT:   %{{.*}} = layer.salloc base 8 capacity 512 : !layer.spad<4x2>
// CHECK:        layer.barrier %{{.*}} : f64
// CHECK-NEXT: }
func.func @layers(%v: f64, %acc: f64) -> f64 {
  %r = region.alloc : !region.region<8, [f64, f64]>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %t = %c0 to %c8 step %c4 {
    layer.layer 0 fwd partner 1 {
      %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
      scf.for %i = %c0 to %c4 step %c4 {
        %e = arith.addi %t, %i : index
        region.store %v, %r[%e] slot 0 id 0 : f64, !region.region<8, [f64, f64]>
        region.store %v, %r[%e] slot 1 id 1 : f64, !region.region<8, [f64, f64]>
      }
      layer.barrier
    }
  }
  %out = layer.layer 1 rev partner 0 -> f64 {
    %tile = layer.salloc base 8 capacity 512 : !layer.spad<4x2>
    %x = region.load %r[%c0] slot 1 from 1 : !region.region<8, [f64, f64]> -> f64
    %s = arith.addf %x, %acc : f64
    layer.barrier %s : f64
  }
  func.return %out : f64
}

// A layer may hold the values of several regions, as many as its tile has entries.
// CHECK-LABEL: func.func @two_regions
// CHECK:      layer.layer 0 fwd partner 1 {
// CHECK-NEXT:   %{{.*}} = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
// CHECK-NEXT:   region.store %{{.*}}, %{{.*}}[%{{.*}}] slot 0 id 0 : f64, !region.region<8, [f64]>
// CHECK-NEXT:   region.store %{{.*}}, %{{.*}}[%{{.*}}] slot 0 id 1 : f64, !region.region<8, [f64]>
func.func @two_regions(%v: f64, %i: index) {
  %a = region.alloc : !region.region<8, [f64]>
  %b = region.alloc : !region.region<8, [f64]>
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
    region.store %v, %a[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
    region.store %v, %b[%i] slot 0 id 1 : f64, !region.region<8, [f64]>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
    layer.barrier
  }
  func.return
}
