// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// A struct-of-arrays tape per cached value, written in FWD and read in REV.
// CHECK-LABEL: func.func @soa
// CHECK:      %[[A:.*]] = tape.alloc name "sub" : !tape.tape<8x4xf64>
// CHECK-NEXT: %[[B:.*]] = tape.alloc : !tape.tape<8xindex>
// CHECK-NEXT: %[[S:.*]] = tape.alloc : !tape.tape<f64>
// CHECK:      tape.store %{{.*}}, %[[A]][%{{.*}}, %{{.*}}] id 0 : f64, !tape.tape<8x4xf64>
// CHECK:      tape.store %{{.*}}, %[[B]][%{{.*}}] id 1 : index, !tape.tape<8xindex>
// CHECK:      tape.store %{{.*}}, %[[S]][] id 2 : f64, !tape.tape<f64>
// CHECK:      %{{.*}} = tape.load %[[A]][%{{.*}}, %{{.*}}] from 0 : !tape.tape<8x4xf64> -> f64
// CHECK:      %{{.*}} = tape.load %[[B]][%{{.*}}] from 1 : !tape.tape<8xindex> -> index
// CHECK:      tape.free %[[A]] : !tape.tape<8x4xf64>
func.func @soa(%v: f64, %i: index, %j: index) -> f64 {
  %a = tape.alloc name "sub" : !tape.tape<8x4xf64>
  %b = tape.alloc : !tape.tape<8xindex>
  %s = tape.alloc : !tape.tape<f64>
  tape.store %v, %a[%i, %j] id 0 : f64, !tape.tape<8x4xf64>
  tape.store %i, %b[%i] id 1 : index, !tape.tape<8xindex>
  tape.store %v, %s[] id 2 : f64, !tape.tape<f64>
  %x = tape.load %a[%i, %j] from 0 : !tape.tape<8x4xf64> -> f64
  %k = tape.load %b[%i] from 1 : !tape.tape<8xindex> -> index
  %y = tape.load %s[] from 2 : !tape.tape<f64> -> f64
  %z = tape.load %a[%j, %i] from 0 : !tape.tape<8x4xf64> -> f64
  tape.free %a : !tape.tape<8x4xf64>
  tape.free %b : !tape.tape<8xindex>
  tape.free %s : !tape.tape<f64>
  func.return %x : f64
}
