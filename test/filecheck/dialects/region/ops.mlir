// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// One array-of-structs region per loop nest; slots in REV consumption order.
// CHECK-LABEL: func.func @aos
// CHECK:      %[[R:.*]] = region.alloc : !region.region<8x4, [f64, f64, index]>
// CHECK-NEXT: %[[S:.*]] = region.alloc : !region.region<[f64]>
// CHECK-NEXT: region.store %{{.*}}, %[[R]][%{{.*}}, %{{.*}}] slot 0 id 0 : f64, !region.region<8x4, [f64, f64, index]>
// CHECK-NEXT: region.store %{{.*}}, %[[R]][%{{.*}}, %{{.*}}] slot 1 id 1 : f64, !region.region<8x4, [f64, f64, index]>
// CHECK-NEXT: region.store %{{.*}}, %[[R]][%{{.*}}, %{{.*}}] slot 2 id 2 : index, !region.region<8x4, [f64, f64, index]>
// CHECK-NEXT: region.store %{{.*}}, %[[S]][] slot 0 id 0 : f64, !region.region<[f64]>
// CHECK-NEXT: %{{.*}} = region.load %[[R]][%{{.*}}, %{{.*}}] slot 1 from 1 : !region.region<8x4, [f64, f64, index]> -> f64
// CHECK-NEXT: %{{.*}} = region.load %[[R]][%{{.*}}, %{{.*}}] slot 2 from 2 : !region.region<8x4, [f64, f64, index]> -> index
// CHECK-NEXT: region.free %[[R]] : !region.region<8x4, [f64, f64, index]>
func.func @aos(%v: f64, %w: f64, %i: index, %j: index) -> f64 {
  %r = region.alloc : !region.region<8x4, [f64, f64, index]>
  %s = region.alloc : !region.region<[f64]>
  region.store %v, %r[%i, %j] slot 0 id 0 : f64, !region.region<8x4, [f64, f64, index]>
  region.store %w, %r[%i, %j] slot 1 id 1 : f64, !region.region<8x4, [f64, f64, index]>
  region.store %i, %r[%i, %j] slot 2 id 2 : index, !region.region<8x4, [f64, f64, index]>
  region.store %v, %s[] slot 0 id 0 : f64, !region.region<[f64]>
  %a = region.load %r[%i, %j] slot 1 from 1 : !region.region<8x4, [f64, f64, index]> -> f64
  %k = region.load %r[%i, %j] slot 2 from 2 : !region.region<8x4, [f64, f64, index]> -> index
  region.free %r : !region.region<8x4, [f64, f64, index]>
  region.free %s : !region.region<[f64]>
  func.return %a : f64
}
