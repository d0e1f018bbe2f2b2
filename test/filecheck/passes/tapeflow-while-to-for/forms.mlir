// RUN: tapeflow-opt -p tapeflow-while-to-for %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=WARN < %t.err

// (a) Counted: `%i < %n`, `%i + 1` (MLIR's uplift-while shape): an scf.for over
// the counter, then the before region once more, at %i = max(lb, n) (here
// lb + ceil(max(0, n - lb) / 1)), for the results.
// CHECK-LABEL: func.func @counted
// CHECK-NOT:     scf.while
// CHECK:         %[[R:.*]] = scf.for %[[I:.*]] = %[[LB:.*]] to %[[N:.*]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK:           memref.load %{{.*}}[%[[I]]]
// CHECK:           scf.yield %{{.*}} : f64
// CHECK:         func.return %[[R]] : f64
func.func @counted(%x: memref<?xf64>, %lb: index, %n: index) -> f64 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.while (%i = %lb, %acc = %zero) : (index, f64) -> (index, f64) {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i, %acc : index, f64
  } do {
  ^bb0(%i2: index, %a2: f64):
    %v = memref.load %x[%i2] : memref<?xf64>
    %s = arith.addf %a2, %v : f64
    %i3 = arith.addi %i2, %c1 : index
    scf.yield %i3, %s : index, f64
  }
  return %r#1 : f64
}

// (b) A step other than 1 is normalized: `for t = 0 to (lb < n ? ceildivui(n - lb, 3) : 0)`
// (exact where the signed `n - lb` overflows), the counter `lb + t * 3`.
// CHECK-LABEL: func.func @strided
// CHECK:         %[[D:.*]] = arith.subi %[[N:.*]], %[[LB:.*]] : index
// CHECK:         %[[C:.*]] = arith.ceildivui %[[D]], %{{.*}} : index
// CHECK:         %[[RUNS:.*]] = arith.cmpi slt, %[[LB]], %[[N]] : index
// CHECK:         %[[T:.*]] = arith.select %[[RUNS]], %[[C]], %{{.*}} : index
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %[[T]] step %{{.*}} {
// CHECK:           %[[M:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %{{.*}}, %[[M]] : index
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[I]]]
func.func @strided(%x: memref<?xf64>, %lb: index, %n: index) {
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f64
  %r = scf.while (%i = %lb) : (index) -> index {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i : index
  } do {
  ^bb0(%i2: index):
    memref.store %one, %x[%i2] : memref<?xf64>
    %i3 = arith.addi %i2, %c3 : index
    scf.yield %i3 : index
  }
  return
}

// (b2) C's `int i` (an i32 counter, as Polygeist emits it): counted in index,
// sign-extended, the counter cast back in the body.
// CHECK-LABEL: func.func @counted_i32
// CHECK:         %[[LB:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         %[[UB:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %{{.*}} {
// CHECK-NEXT:      %[[K:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           arith.sitofp %[[K]] : i32 to f64
func.func @counted_i32(%x: memref<8xf64>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i : i32
  } do {
  ^bb0(%i2: i32):
    %f = arith.sitofp %i2 : i32 to f64
    %ix = arith.index_cast %i2 : i32 to index
    memref.store %f, %x[%ix] : memref<8xf64>
    %i3 = arith.addi %i2, %c1 : i32
    scf.yield %i3 : i32
  }
  return
}

// (b3) An unsigned test (C's `unsigned`/`size_t` counter, `ult`): counted from
// 0 to the trip count, compared unsigned, the counter `lb + t`.
// CHECK-LABEL: func.func @counted_ult
// CHECK:         %[[D:.*]] = arith.subi %[[N:.*]], %[[LB:.*]] : index
// CHECK:         %[[C:.*]] = arith.ceildivui %[[D]], %{{.*}} : index
// CHECK:         %[[RUNS:.*]] = arith.cmpi ult, %[[LB]], %[[N]] : index
// CHECK:         %[[T:.*]] = arith.select %[[RUNS]], %[[C]], %{{.*}} : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[T]] step %{{.*}} iter_args
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[LB]], %[[I]] : index
// CHECK:           memref.load %{{.*}}[%[[K]]]
func.func @counted_ult(%x: memref<?xf64>, %lb: index, %n: index) -> f64 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.while (%i = %lb, %acc = %zero) : (index, f64) -> (index, f64) {
    %c = arith.cmpi ult, %i, %n : index
    scf.condition(%c) %i, %acc : index, f64
  } do {
  ^bb0(%i2: index, %acc2: f64):
    %v = memref.load %x[%i2] : memref<?xf64>
    %s = arith.addf %acc2, %v : f64
    %i3 = arith.addi %i2, %c1 : index
    scf.yield %i3, %s : index, f64
  }
  return %r#1 : f64
}

// (b4) Mirrored and inclusive (`%n uge %i`) on an i32 counter: zero-extended,
// one past the bound, step 2.
// CHECK-LABEL: func.func @counted_uge_i32
// CHECK:         %[[W:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK:         arith.index_cast %[[W]] : i64 to index
// CHECK:         arith.cmpi ult
// CHECK:         scf.for
// CHECK-NOT:     scf.while
func.func @counted_uge_i32(%x: memref<8xf64>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %c = arith.cmpi uge, %n, %i : i32
    scf.condition(%c) %i : i32
  } do {
  ^bb0(%i2: i32):
    %f = arith.uitofp %i2 : i32 to f64
    %ix = arith.index_cast %i2 : i32 to index
    memref.store %f, %x[%ix] : memref<8xf64>
    %i3 = arith.addi %i2, %c2 : i32
    scf.yield %i3 : i32
  }
  return
}

// (c) Counted by a first run: a data-dependent exit whose condition depends on
// pure arithmetic only (Newton's iteration). A counting scf.while over the
// control slice carries the count, then the loop is replayed n times.
// CHECK-LABEL: func.func @newton
// CHECK:         %[[N:.*]], %{{.*}} = scf.while (%[[K:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (index, f64) -> (index, f64) {
// CHECK:           scf.condition(%{{.*}}) %[[K]], %{{.*}} : index, f64
// CHECK:         } do {
// CHECK:           %[[K1:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:           scf.yield %[[K1]], %{{.*}} : index, f64
// CHECK:         %[[X:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK:         arith.divf %{{.*}}, %[[X]] : f64
func.func @newton(%a: f64) -> f64 {
  %tol = arith.constant 1.0e-12 : f64
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %r = scf.while (%x = %one) : (f64) -> f64 {
    %q = arith.divf %a, %x : f64
    %s = arith.addf %x, %q : f64
    %nx = arith.mulf %s, %half : f64
    %d = arith.subf %nx, %x : f64
    %ad = math.absf %d : f64
    %c = arith.cmpf ogt, %ad, %tol : f64
    scf.condition(%c) %nx : f64
  } do {
  ^bb0(%x2: f64):
    scf.yield %x2 : f64
  }
  return %r : f64
}

// (d) Bounded: the exit depends on memory the loop writes, but a counter
// conjunct bounds it: an scf.for to the bound with a `done` flag; an iteration
// runs the before region, then the after region if the condition holds.
// CHECK-LABEL: func.func @bounded
// CHECK-NOT:     scf.while
// CHECK:         %[[FALSE:.*]] = arith.constant false
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         %[[ENDED:.*]], %{{.*}}, %{{.*}}, %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[MAX:.*]] step %{{.*}} iter_args(%[[DONE:.*]] = %[[FALSE]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i1, f64, index, f64) {
// CHECK:           scf.if %[[DONE]] -> (i1, f64, index, f64) {
// CHECK:           } else {
// CHECK:             scf.if %{{.*}} -> (i1, f64, index, f64) {
// CHECK:               memref.store
// CHECK:               scf.yield %[[FALSE]], %{{.*}}, %{{.*}}, %{{.*}} : i1, f64, index, f64
// CHECK:             } else {
// CHECK:               scf.yield %[[TRUE]], %{{.*}}, %{{.*}}, %{{.*}} : i1, f64, index, f64
// CHECK:         scf.if %[[ENDED]] -> (index, f64) {
func.func @bounded(%y: memref<1xf64>, %max: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ten = arith.constant 10.0 : f64
  %two = arith.constant 2.0 : f64
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.while (%k = %c0, %s = %zero) : (index, f64) -> (index, f64) {
    %more = arith.cmpi slt, %k, %max : index
    %v = memref.load %y[%c0] : memref<1xf64>
    %small = arith.cmpf olt, %v, %ten : f64
    %go = arith.andi %more, %small : i1
    scf.condition(%go) %k, %s : index, f64
  } do {
  ^bb0(%k2: index, %s2: f64):
    %v = memref.load %y[%c0] : memref<1xf64>
    %w = arith.mulf %v, %two : f64
    memref.store %w, %y[%c0] : memref<1xf64>
    %t = arith.addf %s2, %w : f64
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3, %t : index, f64
  }
  return %r#0 : index
}

// (e) No method: the exit depends on memory the loop writes, with no counter.
// The loop stays, with a warning that says why.
// CHECK-LABEL: func.func @unbounded
// CHECK:         scf.while
// WARN-DAG: forms.mlir:[[# @LINE + 5]]:3: warning: tapeflow-while-to-for: 'scf.while' left as it is: its exit condition depends on memory the loop writes ('memref.load' of a buffer a store in the loop changes), and no counter bounds its trip count: its condition has no integer comparison ('arith.cmpi')
func.func @unbounded(%y: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %ten = arith.constant 10.0 : f64
  %two = arith.constant 2.0 : f64
  scf.while () : () -> () {
    %v = memref.load %y[%c0] : memref<1xf64>
    %small = arith.cmpf olt, %v, %ten : f64
    scf.condition(%small)
  } do {
  ^bb0():
    %v = memref.load %y[%c0] : memref<1xf64>
    %w = arith.mulf %v, %two : f64
    memref.store %w, %y[%c0] : memref<1xf64>
    scf.yield
  }
  return
}

// (f) No method, with a comparison that is not a counter test: the warning says
// which comparison and why it was not taken for one.
// CHECK-LABEL: func.func @unrecognised
// CHECK:         scf.while
// WARN-DAG: forms.mlir:[[# @LINE + 5]]:3: warning: tapeflow-while-to-for: 'scf.while' left as it is: its exit condition depends on memory the loop writes ('memref.load' of a buffer a store in the loop changes), and no counter bounds its trip count: 'arith.cmpi ne' is not an ordering test; 'arith.cmpi ult' does not test a loop argument (plus a constant) that the loop advances by a positive constant or loop-invariant step
func.func @unrecognised(%y: memref<4xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.while (%i = %c0) : (index) -> () {
    %v = memref.load %y[%c0] : memref<4xindex>
    %more = arith.cmpi ne, %v, %c3 : index
    %below = arith.cmpi ult, %v, %n : index
    %go = arith.andi %more, %below : i1
    scf.condition(%go)
  } do {
  ^bb0():
    %v = memref.load %y[%c0] : memref<4xindex>
    %w = arith.addi %v, %c1 : index
    memref.store %w, %y[%c0] : memref<4xindex>
    scf.yield
  }
  return
}
