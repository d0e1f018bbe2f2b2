// RUN: tapeflow-opt -p tapeflow-unit-steps %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=WARN < %t.err

// (a) Constant bounds, 17 - 1 not a multiple of 4: ceil(16 / 4) = 4 trips,
// a constant; the induction variable is 1 + k * 4 (carried values untouched).
// CHECK-LABEL: func.func @constant
// CHECK:         %zero = arith.constant
// CHECK-NEXT:    %[[T:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %{{.*}} = scf.for %[[K:.*]] = %[[Z]] to %[[T]] step %[[ONE]] iter_args(%{{.*}} = %zero) -> (f64) {
// CHECK-NEXT:      %[[M:.*]] = arith.muli %[[K]], %c4 : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %c1, %[[M]] : index
// CHECK-NEXT:      %{{.*}} = memref.load %{{.*}}[%[[I]]] : memref<17xf64>
func.func @constant(%x: memref<17xf64>) -> f64 {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c17 = arith.constant 17 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c1 to %c17 step %c4 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<17xf64>
    %s = arith.addf %acc, %v : f64
    scf.yield %s : f64
  }
  return %r : f64
}

// (b) A run-time step: lb < ub ? ceildivui(ub - lb, s) : 0 trips (unsigned: exact
// where ub - lb overflows the signed range; an empty loop stays empty).
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[D:.*]] = arith.subi %[[UB:.*]], %[[LB:.*]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.ceildivui %[[D]], %[[S:.*]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[T:.*]] = arith.select %[[R]], %[[Q]], %[[Z]] : index
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %[[T]] step %{{.*}} {
// CHECK-NEXT:      %[[M:.*]] = arith.muli %[[K]], %[[S]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[LB]], %[[M]] : index
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[I]]] : memref<?xf64>
func.func @dynamic(%x: memref<?xf64>, %lb: index, %ub: index, %s: index) {
  %one = arith.constant 1.0 : f64
  scf.for %i = %lb to %ub step %s {
    memref.store %one, %x[%i] : memref<?xf64>
  }
  return
}

// (c) Nested: the inner loop's bounds use the outer induction variable, which is
// then the recomputed one; both loops get step 1. Integer (i32) bounds keep their
// type. The innermost loop has step 1 and bounds that vary (`j to j + 3`) but
// differ by a constant: it counts from 0 to 3, its induction variable `j + m`
// (no multiplication), so Enzyme sizes its cache statically. Counted in i32,
// `j + 3` wraps below `j` near 2**31 (the loop is then empty), so the loop of 3
// runs under `j < j + 3`.
// CHECK-LABEL: func.func @nested
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      %[[M:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK-NEXT:      %[[I:.*]] = arith.addi %{{.*}}, %[[M]] : i32
// CHECK:           %[[D:.*]] = arith.subi %{{.*}}, %[[I]] : i32
// CHECK:           scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:        %[[N:.*]] = arith.muli %[[L]], %{{.*}} : i32
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[I]], %[[N]] : i32
// CHECK:             %[[END:.*]] = arith.addi %[[J]], %{{.*}} : i32
// CHECK-NEXT:        %[[OK:.*]] = arith.cmpi slt, %[[J]], %[[END]] : i32
// CHECK-NEXT:        scf.if %[[OK]] {
// CHECK:               %[[T3:.*]] = arith.constant 3 : i32
// CHECK:               scf.for %[[M:.*]] = %{{.*}} to %[[T3]] step %{{.*}} : i32 {
// CHECK-NEXT:            %[[KK:.*]] = arith.addi %[[J]], %[[M]] : i32
// CHECK-NEXT:            arith.index_cast %[[KK]]
func.func @nested(%x: memref<64xf64>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c5 : i32 {
    scf.for %j = %i to %n step %c3 : i32 {
      %end = arith.addi %j, %c3 : i32
      scf.for %k = %j to %end step %c1 : i32 {
        %ix = arith.index_cast %k : i32 to index
        memref.store %one, %x[%ix] : memref<64xf64>
      }
    }
  }
  return
}

// (d) affine.for keeps affine form: `0 to min_j ((U_j - L) ceildiv s)` and the
// induction variable an affine.apply, a valid dimension of the body's accesses.
// CHECK-LABEL: func.func @affine
// CHECK:         affine.for %[[K:.*]] = 0 to min affine_map<(d0, d1) -> ((((d1 + 3) + (d0 * -1)) ceildiv 4), (((d0 * -1) + 7) ceildiv 4))>(%[[LO:.*]], %[[LO]]) {
// CHECK-NEXT:      %[[I:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 4)))> (%[[LO]], %[[K]])
// CHECK-NEXT:      affine.store %{{.*}}, %{{.*}}[%[[I]]] : memref<16xf64>
func.func @affine(%x: memref<16xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %t = 0 to 2 {
    affine.for %i = affine_map<(d0) -> (d0)>(%t) to min affine_map<(d0) -> (d0 + 3, 7)>(%t) step 4 {
      affine.store %one, %x[%i] : memref<16xf64>
    }
  }
  return
}

// (e) An affine.for whose lower bound is the max of two expressions cannot be
// written in one affine map: it is left, with a warning (tapeflow-enzyme refuses it).
// CHECK-LABEL: func.func @affine_max
// CHECK:         affine.for %{{.*}} = max affine_map<(d0) -> (d0, 2)>(%{{.*}}) to 9 step 3 {
// WARN: unit-steps.mlir:[[# @LINE + 4]]:5: warning: tapeflow-unit-steps: 'affine.for' with step 3 left as it is: its lower bound is the max of several expressions
func.func @affine_max(%x: memref<16xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %t = 0 to 2 {
    affine.for %i = max affine_map<(d0) -> (d0, 2)>(%t) to 9 step 3 {
      affine.store %one, %x[%i] : memref<16xf64>
    }
  }
  return
}
