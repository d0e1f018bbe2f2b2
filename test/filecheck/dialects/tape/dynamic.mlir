// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// Tapes and regions with extents known only at run time take them as operands,
// one per `?`, in order.
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT:   %[[T:.*]] = tape.alloc(%{{.*}}, %{{.*}}) name "x" : !tape.tape<?x?x4xf64>
// CHECK-NEXT:   %[[S:.*]] = tape.alloc(%{{.*}}) : !tape.tape<8x?xindex>
// CHECK-NEXT:   tape.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}, %{{.*}}] id 0 : f64, !tape.tape<?x?x4xf64>
// CHECK-NEXT:   %{{.*}} = tape.load %[[T]][%{{.*}}, %{{.*}}, %{{.*}}] from 0 : !tape.tape<?x?x4xf64> -> f64
// CHECK-NEXT:   tape.free %[[T]] : !tape.tape<?x?x4xf64>
// CHECK-NEXT:   %[[R:.*]] = region.alloc(%{{.*}}) : !region.region<?x3, [f64, index]>
// CHECK-NEXT:   region.store %{{.*}}, %[[R]][%{{.*}}, %{{.*}}] slot 0 id 0 : f64, !region.region<?x3, [f64, index]>
// CHECK-NEXT:   %{{.*}} = region.load %[[R]][%{{.*}}, %{{.*}}] slot 0 from 0 : !region.region<?x3, [f64, index]> -> f64
// CHECK-NEXT:   region.free %[[R]] : !region.region<?x3, [f64, index]>
func.func @dynamic(%n: index, %m: index, %v: f64, %i: index) {
  %t = tape.alloc(%n, %m) name "x" : !tape.tape<?x?x4xf64>
  %s = tape.alloc(%n) : !tape.tape<8x?xindex>
  tape.store %v, %t[%i, %i, %i] id 0 : f64, !tape.tape<?x?x4xf64>
  %w = tape.load %t[%i, %i, %i] from 0 : !tape.tape<?x?x4xf64> -> f64
  tape.free %t : !tape.tape<?x?x4xf64>
  %r = region.alloc(%n) : !region.region<?x3, [f64, index]>
  region.store %v, %r[%i, %i] slot 0 id 0 : f64, !region.region<?x3, [f64, index]>
  %u = region.load %r[%i, %i] slot 0 from 0 : !region.region<?x3, [f64, index]> -> f64
  region.free %r : !region.region<?x3, [f64, index]>
  func.return
}
