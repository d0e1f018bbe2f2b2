// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-recompute-loads{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: not tapeflow-opt -p 'tapeflow-recompute-loads' %s 2>&1 | filecheck %s --check-prefix=PRIMAL
// RUN: not tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-recompute-loads' %s 2>&1 | filecheck %s --check-prefix=LATE

// Which caches Enzyme for LLVM would rebuild in the reverse sweep (hand-checked
// against the rule in lowering/tapeflow_recompute_loads.py):
// - @constant: `m[i, 2*j+1] * 0.5` over a matrix nothing writes: rebuilt from the
//   stored indices (its cache goes), and `u[i] + u[i]` over a buffer of the
//   function's own written only before the loop that reads it: rebuilt too.
// - @overwritten: `x[i]` is loaded, then x is written in a later loop: cached.
// - @aliasing: `a[i]` is loaded in the loop that stores into `b`, another primal
//   argument, which may be the same memory: cached.
// - @call: `x[i] - 1` feeds `math.exp`, which REV calls again: cached.
// - @minimum: `min(x[i], y[i])` over memory nothing writes: its two operands are
//   cached, and REV's derivative of `arith.minimumf` passes them to
//   `math.copysign`, an op of the derivative, not a call of the primal: rebuilt
//   (the running product stays cached).
// - @rows: `x[i, 0]` is loaded while the loop writes x[i + 1, 0]: no later write
//   reaches row i (the same iteration writes i + 1, later ones i + 2 and up):
//   rebuilt. @same_row writes x[i, 0] itself after loading it: cached.
// - @apart: `w[i]` is loaded while the loop writes `o[i + 1]`; two primal
//   arguments of one type may be one array, so their indices are compared: later
//   iterations write o[i + 2] and up, never w[i]: rebuilt. @together writes o[i],
//   which is w[i] if the two are one array: cached.
// - @triangle: `x[i] - x[j]` over the pairs j > i, which Enzyme caches per outer
//   iteration at `j - (i + 1)`: rebuilt, with j solved as the read index plus i + 1;
//   the running product stays cached.

func.func @constant(%m: memref<4x8xf64>, %v: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f64
  %zero = arith.constant 0.0 : f64
  %u = memref.alloca() : memref<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %dot = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %twice = arith.muli %j, %c2 : index
      %col = arith.addi %twice, %c1 : index
      %e = memref.load %m[%i, %col] : memref<4x8xf64>
      %h = arith.mulf %e, %half : f64
      %vj = memref.load %v[%j] : memref<4xf64>
      %p = arith.mulf %h, %vj : f64
      %n = arith.addf %acc, %p : f64
      scf.yield %n : f64
    }
    memref.store %dot, %u[%i] : memref<4xf64>
  }
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> (f64) {
    %o = memref.load %u[%i] : memref<4xf64>
    %t = arith.addf %o, %o : f64
    %n = arith.mulf %acc, %t : f64
    scf.yield %n : f64
  }
  return %r : f64
}

func.func @constant_grad(%m: memref<4x8xf64>, %v: memref<4xf64>, %d_v: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @constant(%m, %v, %d_v, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4x8xf64>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

func.func @overwritten(%x: memref<4xf64>, %w: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<4xf64>
    %wi = memref.load %w[%i] : memref<4xf64>
    %p = arith.mulf %xi, %wi : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %zero, %x[%i] : memref<4xf64>
  }
  return %s : f64
}

func.func @overwritten_grad(%x: memref<4xf64>, %w: memref<4xf64>, %d_w: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @overwritten(%x, %w, %d_w, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

func.func @aliasing(%a: memref<4xf64>, %w: memref<4xf64>, %b: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %ai = memref.load %a[%i] : memref<4xf64>
    %wi = memref.load %w[%i] : memref<4xf64>
    %p = arith.mulf %ai, %wi : f64
    memref.store %zero, %b[%i] : memref<4xf64>
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  return %s : f64
}

func.func @aliasing_grad(%a: memref<4xf64>, %w: memref<4xf64>, %d_w: memref<4xf64>, %b: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @aliasing(%a, %w, %d_w, %b, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

func.func @call(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<4xf64>
    %d = arith.subf %xi, %one : f64
    %e = math.exp %d : f64
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  return %s : f64
}

func.func @call_grad(%x: memref<4xf64>, %d_x: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @call(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

func.func @minimum(%x: memref<4xf64>, %y: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<4xf64>
    %yi = memref.load %y[%i] : memref<4xf64>
    %m = arith.minimumf %xi, %yi : f64
    %n = arith.mulf %acc, %m : f64
    scf.yield %n : f64
  }
  return %p : f64
}

func.func @minimum_grad(%x: memref<4xf64>, %d_x: memref<4xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @minimum(%x, %d_x, %y, %d_y, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

func.func @rows(%x: memref<5x2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> (f64) {
    %a = memref.load %x[%i, %c0] : memref<5x2xf64>
    %n = arith.mulf %acc, %a : f64
    %next = arith.addi %i, %c1 : index
    memref.store %n, %x[%next, %c0] : memref<5x2xf64>
    scf.yield %n : f64
  }
  return %p : f64
}

func.func @rows_grad(%x: memref<5x2xf64>, %d_x: memref<5x2xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @rows(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<5x2xf64>, memref<5x2xf64>, f64) -> f64
  return %r : f64
}

func.func @same_row(%x: memref<5x2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> (f64) {
    %a = memref.load %x[%i, %c0] : memref<5x2xf64>
    %n = arith.mulf %acc, %a : f64
    memref.store %n, %x[%i, %c0] : memref<5x2xf64>
    scf.yield %n : f64
  }
  return %p : f64
}

func.func @same_row_grad(%x: memref<5x2xf64>, %d_x: memref<5x2xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @same_row(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<5x2xf64>, memref<5x2xf64>, f64) -> f64
  return %r : f64
}

func.func @apart(%w: memref<5xf64>, %o: memref<5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> (f64) {
    %a = memref.load %w[%i] : memref<5xf64>
    %n = arith.mulf %acc, %a : f64
    %next = arith.addi %i, %c1 : index
    memref.store %n, %o[%next] : memref<5xf64>
    scf.yield %n : f64
  }
  return %p : f64
}

func.func @apart_grad(%w: memref<5xf64>, %d_w: memref<5xf64>, %o: memref<5xf64>, %d_o: memref<5xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @apart(%w, %d_w, %o, %d_o, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, f64) -> f64
  return %r : f64
}

func.func @together(%w: memref<5xf64>, %o: memref<5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> (f64) {
    %a = memref.load %w[%i] : memref<5xf64>
    %n = arith.mulf %acc, %a : f64
    memref.store %n, %o[%i] : memref<5xf64>
    scf.yield %n : f64
  }
  return %p : f64
}

func.func @together_grad(%w: memref<5xf64>, %d_w: memref<5xf64>, %o: memref<5xf64>, %d_o: memref<5xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @together(%w, %d_w, %o, %d_o, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, f64) -> f64
  return %r : f64
}

func.func @triangle(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %u = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %one) -> (f64) {
    %i1 = arith.addi %i, %c1 : index
    %v = scf.for %j = %i1 to %c4 step %c1 iter_args(%b = %a) -> (f64) {
      %xi = memref.load %x[%i] : memref<4xf64>
      %xj = memref.load %x[%j] : memref<4xf64>
      %r = arith.subf %xi, %xj : f64
      %n = arith.mulf %b, %r : f64
      scf.yield %n : f64
    }
    scf.yield %v : f64
  }
  return %u : f64
}

func.func @triangle_grad(%x: memref<4xf64>, %d_x: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @triangle(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}

// CHECK-LABEL: func.func private @diffeconstant
// The product's carried value is the one cache left.
// CHECK:         %[[KEPT:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NOT:     memref.alloc()
// CHECK:         scf.for
// CHECK:           %[[ROW:.*]] = arith.subi %c3, %{{.*}} : index
// CHECK:           memref.load %[[KEPT]][%[[ROW]]]
// u[i] + u[i] from u itself:
// CHECK-NEXT:      %[[U:.*]] = memref.load %alloca_1[%[[ROW]]] : memref<4xf64>
// CHECK-NEXT:      arith.addf %[[U]], %[[U]] : f64
// CHECK:         scf.for
// CHECK:           %[[I:.*]] = arith.subi %c3, %{{.*}} : index
// CHECK:           scf.for
// CHECK-NEXT:        %[[J:.*]] = arith.subi %c3, %{{.*}} : index
// m[i, 2*j+1] * 0.5 rebuilt at the reverse loop's indices:
// CHECK-NEXT:        %[[TWICE:.*]] = arith.muli %[[J]], %c2 : index
// CHECK-NEXT:        %[[COL:.*]] = arith.addi %[[TWICE]], %c1 : index
// CHECK-NEXT:        %[[M:.*]] = memref.load %arg0[%[[I]], %[[COL]]] : memref<4x8xf64>
// CHECK-NEXT:        %[[H:.*]] = arith.mulf %[[M]], %cst : f64
// CHECK-NEXT:        arith.mulf %{{.*}}, %[[H]] fastmath<fast> : f64

// CHECK-LABEL: func.func private @diffeoverwritten
// CHECK:         memref.alloc() : memref<4xf64>
// CHECK-LABEL: func.func private @diffealiasing
// CHECK:         memref.alloc() : memref<4xf64>
// CHECK-LABEL: func.func private @diffecall
// CHECK:         memref.alloc() : memref<4xf64>

// CHECK-LABEL: func.func private @diffeminimum
// CHECK:         %[[PRODUCT:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NOT:     memref.alloc()
// CHECK:         scf.for
// CHECK:           %[[ROW:.*]] = arith.subi %c3, %{{.*}} : index
// CHECK-NEXT:      %[[X:.*]] = memref.load %arg0[%[[ROW]]] : memref<4xf64>
// CHECK-NEXT:      %[[Y:.*]] = memref.load %arg2[%[[ROW]]] : memref<4xf64>
// CHECK-NEXT:      memref.load %[[PRODUCT]][%[[ROW]]]
// CHECK:           math.copysign %{{.*}}, %[[X]]
// CHECK:           math.copysign %{{.*}}, %[[Y]]

// CHECK-LABEL: func.func private @differows
// CHECK:         %[[PRODUCT:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NOT:     memref.alloc()
// CHECK:         scf.for
// CHECK:           %[[ROW:.*]] = arith.subi %c3, %{{.*}} : index
// CHECK-NEXT:      memref.load %[[PRODUCT]][%[[ROW]]]
// CHECK-NEXT:      memref.load %arg0[%[[ROW]], %c0] : memref<5x2xf64>
// CHECK-LABEL: func.func private @diffesame_row
// CHECK-COUNT-2: memref.alloc() : memref<4xf64>
// CHECK-LABEL: func.func private @diffeapart
// CHECK:         %[[PRODUCT:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NOT:     memref.alloc()
// CHECK:         scf.for
// CHECK:           %[[ROW:.*]] = arith.subi %c3, %{{.*}} : index
// CHECK-NEXT:      memref.load %[[PRODUCT]][%[[ROW]]]
// CHECK-NEXT:      memref.load %arg0[%[[ROW]]] : memref<5xf64>
// CHECK-LABEL: func.func private @diffetogether
// CHECK-COUNT-2: memref.alloc() : memref<4xf64>

// CHECK-LABEL: func.func private @diffetriangle
// One buffer of handles left: the running product's.
// CHECK:         %[[HANDLES:.*]] = memref.alloc() : memref<4xmemref<?xf64>>
// CHECK-NOT:     memref.alloc() : memref<4xmemref<?xf64>>
// CHECK:           memref.load %[[HANDLES]][%[[I:.*]]] :
// CHECK:           scf.for
// CHECK:             enzyme.load %{{[0-9]+}}[%[[K:[0-9]+]]] (
// x[i] - x[j], j = k + (i + 1):
// CHECK-NEXT:        %[[XI:.*]] = memref.load %arg0[%[[I]]] : memref<4xf64>
// CHECK-NEXT:        %[[I1:.*]] = arith.addi %[[I]], %c1 : index
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[K]], %[[I1]] : index
// CHECK-NEXT:        %[[XJ:.*]] = memref.load %arg0[%[[J]]] : memref<4xf64>
// CHECK-NEXT:        arith.subf %[[XI]], %[[XJ]] : f64

// STATS: tapeflow-recompute-loads: @diffeconstant: 2 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffeoverwritten: 0 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffealiasing: 0 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffecall: 0 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffeminimum: 2 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @differows: 1 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffesame_row: 0 caches recomputed, 2 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffeapart: 1 caches recomputed, 1 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffetogether: 0 caches recomputed, 2 kept
// STATS-NEXT: tapeflow-recompute-loads: @diffetriangle: 1 caches recomputed, 1 kept

// PRIMAL: error: tapeflow-recompute-loads: the module has no gradient function

// LATE: error: tapeflow-recompute-loads: @diffeconstant is at the tape stage (tape.alloc/store/load ops), past the Enzyme-gradient stage tapeflow-recompute-loads takes; run tapeflow-recompute-loads before tapeflow-raise-tape
