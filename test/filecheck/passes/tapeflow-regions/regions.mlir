// RUN: tapeflow-opt -p 'tapeflow-regions{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: not tapeflow-opt -p tapeflow-regions %S/../tapeflow-raise-tape/errors.mlir 2>&1 | filecheck %s --check-prefix=UNDIFFERENTIATED

// Three tapes of one FWD loop, stored a, b, c and read in REV c, a, b: one region
// whose slots follow the REV order. A tape of the same shape stored by another
// loop gets its own region; two scalars stored outside loops share a region of
// shape [].

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[R:[^ ]+]] = region.alloc : !region.region<4, [f64, f64, index]>
// CHECK-NEXT:   %[[OTHER:[^ ]+]] = region.alloc : !region.region<4, [f64]>
// CHECK-NEXT:   %[[S:[^ ]+]] = region.alloc : !region.region<[f64, f64]>
// CHECK:        scf.for %[[I:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:          region.store %{{.*}}, %[[R]][%[[I]]] slot 1 id 0 : f64, !region.region<4, [f64, f64, index]>
// CHECK-NEXT:     region.store %{{.*}}, %[[R]][%[[I]]] slot 2 id 1 : index, !region.region<4, [f64, f64, index]>
// CHECK-NEXT:     region.store %{{.*}}, %[[R]][%[[I]]] slot 0 id 2 : f64, !region.region<4, [f64, f64, index]>
// CHECK:        scf.for %[[J:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:          region.store %{{.*}}, %[[OTHER]][%[[J]]] slot 0 id 0 : f64, !region.region<4, [f64]>
// CHECK:        region.store %{{.*}}, %[[S]][] slot 1 id 0 : f64, !region.region<[f64, f64]>
// CHECK-NEXT:   region.store %{{.*}}, %[[S]][] slot 0 id 1 : f64, !region.region<[f64, f64]>
// CHECK:        %{{.*}} = region.load %[[S]][] slot 0 from 1 : !region.region<[f64, f64]> -> f64
// CHECK-NEXT:   %{{.*}} = region.load %[[S]][] slot 1 from 0 : !region.region<[f64, f64]> -> f64
// CHECK:        scf.for
// CHECK:          %{{.*}} = region.load %[[OTHER]][%{{.*}}] slot 0 from 0 : !region.region<4, [f64]> -> f64
// CHECK:        scf.for
// CHECK:          %{{.*}} = region.load %[[R]][%[[K:[^ ]+]]] slot 0 from 2 : !region.region<4, [f64, f64, index]> -> f64
// CHECK-NEXT:     %{{.*}} = region.load %[[R]][%[[K]]] slot 1 from 0 : !region.region<4, [f64, f64, index]> -> f64
// CHECK-NEXT:     %{{.*}} = region.load %[[R]][%[[K]]] slot 2 from 1 : !region.region<4, [f64, f64, index]> -> index
// The region is freed where its last tape was.
// CHECK:        region.free %[[OTHER]]
// CHECK-NEXT:   region.free %[[R]]
// CHECK-NEXT:   region.free %[[S]]
// CHECK-NOT:    tape.

// STATS:      tapeflow-regions: @diffef: 6 tapes -> 3 regions
// STATS-NEXT:   region !region.region<4, [f64, f64, index]>: c, a, b
// STATS-NEXT:   region !region.region<4, [f64]>: d
// STATS-NEXT:   region !region.region<[f64, f64]>: t, s

// UNDIFFERENTIATED: error: tapeflow-regions: the module has no gradient function

func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tape.alloc name "a" : !tape.tape<4xf64>
  %b = tape.alloc name "b" : !tape.tape<4xindex>
  %c = tape.alloc name "c" : !tape.tape<4xf64>
  %d = tape.alloc name "d" : !tape.tape<4xf64>
  %s = tape.alloc name "s" : !tape.tape<f64>
  %t = tape.alloc name "t" : !tape.tape<f64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %w = arith.mulf %v, %v : f64
    tape.store %v, %a[%i] id 0 : f64, !tape.tape<4xf64>
    tape.store %i, %b[%i] id 1 : index, !tape.tape<4xindex>
    tape.store %w, %c[%i] id 2 : f64, !tape.tape<4xf64>
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %v = memref.load %x[%j] : memref<4xf64>
    tape.store %v, %d[%j] id 3 : f64, !tape.tape<4xf64>
  }
  %x0 = memref.load %x[%c0] : memref<4xf64>
  tape.store %x0, %s[] id 4 : f64, !tape.tape<f64>
  tape.store %seed, %t[] id 5 : f64, !tape.tape<f64>
  %t0 = tape.load %t[] from 5 : !tape.tape<f64> -> f64
  %s0 = tape.load %s[] from 4 : !tape.tape<f64> -> f64
  scf.for %j = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %j : index
    %v = tape.load %d[%r] from 3 : !tape.tape<4xf64> -> f64
    memref.store %v, %dx[%r] : memref<4xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %i : index
    %w = tape.load %c[%r] from 2 : !tape.tape<4xf64> -> f64
    %v = tape.load %a[%r] from 0 : !tape.tape<4xf64> -> f64
    %k = tape.load %b[%r] from 1 : !tape.tape<4xindex> -> index
    %g = arith.mulf %w, %v : f64
    %h = arith.addf %g, %t0 : f64
    %e = arith.addf %h, %s0 : f64
    memref.store %e, %dx[%k] : memref<4xf64>
  }
  tape.free %s : !tape.tape<f64>
  tape.free %d : !tape.tape<4xf64>
  tape.free %a : !tape.tape<4xf64>
  tape.free %b : !tape.tape<4xindex>
  tape.free %c : !tape.tape<4xf64>
  tape.free %t : !tape.tape<f64>
  func.return
}
