// RUN: tapeflow-opt -p 'tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// Which buffers are caches, on a hand-written gradient function. REV begins at
// the first top-level op that reads the seed (%seed) or touches a shadow (%dx).
// Only %cache and %leak are written before that and read only after it.

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[T:.*]] = tape.alloc name "mulf" : !tape.tape<4x8xf64>
// CHECK:        %[[L:.*]] = tape.alloc name "iv" : !tape.tape<4xindex>
// CHECK:        %[[TMP:.*]] = memref.alloc() : memref<4xf64>
// CHECK:        %[[DEAD:.*]] = memref.alloc() : memref<4xf64>
// CHECK:        %[[LATE:.*]] = memref.alloc() : memref<4xf64>
// CHECK:        %[[PASSED:.*]] = memref.alloc() : memref<4xf64>
// A store through a subview at [%i, 1] with stride 2: element k is [%i, 1 + 2k].
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:      memref.subview
// CHECK:          %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[K2:.*]] = arith.muli %{{.*}}, %[[TWO]] : index
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[COL:.*]] = arith.addi %[[ONE]], %[[K2]] : index
// CHECK-NEXT:     tape.store %{{.*}}, %[[T]][%[[I]], %[[COL]]] id 0 : f64, !tape.tape<4x8xf64>
// CHECK-NEXT:     tape.store %[[I]], %[[L]][%[[I]]] id 1 : index, !tape.tape<4xindex>
// CHECK:        %{{.*}} = tape.load %[[T]][%{{.*}}, %{{.*}}] from 0 : !tape.tape<4x8xf64> -> f64
// CHECK:        %{{.*}} = tape.load %[[L]][%{{.*}}] from 1 : !tape.tape<4xindex> -> index
// CHECK:        tape.free %[[T]] : !tape.tape<4x8xf64>
// %leak is never deallocated: its tape is freed before the return.
// CHECK:        tape.free %[[L]] : !tape.tape<4xindex>
// CHECK-NEXT:   func.return

// STATS:      tapeflow-raise-tape: @diffef: 2 tapes, 36 values, 288 bytes
// STATS-NEXT:   tape mulf {{ *}}!tape.tape<4x8xf64> {{ *}}32 values {{ *}}256 bytes  1 store(s), 1 load(s)
// STATS-NEXT:   tape iv {{ *}}!tape.tape<4xindex> {{ *}}4 values {{ *}}32 bytes  1 store(s), 1 load(s)
// STATS-NEXT:   kept as memref: %tmp (memref<4xf64>): read in the forward sweep
// STATS-NEXT:   kept as memref: %dead (memref<4xf64>): never read
// STATS-NEXT:   kept as memref: %late (memref<4xf64>): written in the reverse sweep
// STATS-NEXT:   kept as memref: %passed (memref<4xf64>): used by 'func.call', which a tape cannot express

func.func private @use(%b: memref<4xf64>)

func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) -> f64 attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %cache = memref.alloc() : memref<4x8xf64>
  %leak = memref.alloc() : memref<4xindex>
  %tmp = memref.alloc() : memref<4xf64>
  %dead = memref.alloc() : memref<4xf64>
  %late = memref.alloc() : memref<4xf64>
  %passed = memref.alloc() : memref<4xf64>
  // FWD
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<4xf64>
    %sq = arith.mulf %v, %v : f64
    %row = memref.subview %cache[%i, 1] [1, 4] [1, 2] : memref<4x8xf64> to memref<4xf64, strided<[2], offset: ?>>
    memref.store %sq, %row[%c3] : memref<4xf64, strided<[2], offset: ?>>
    memref.store %i, %leak[%i] : memref<4xindex>
    memref.store %sq, %tmp[%i] : memref<4xf64>
    memref.store %sq, %dead[%i] : memref<4xf64>
    memref.store %sq, %passed[%i] : memref<4xf64>
    %next = arith.addf %acc, %sq : f64
    scf.yield %next : f64
  }
  %t0 = memref.load %tmp[%c0] : memref<4xf64>
  func.call @use(%passed) : (memref<4xf64>) -> ()
  // REV
  %d = arith.mulf %seed, %t0 : f64
  %r = arith.subi %c3, %c1 : index
  %w = memref.load %cache[%r, %c1] : memref<4x8xf64>
  %k = memref.load %leak[%r] : memref<4xindex>
  memref.store %w, %late[%k] : memref<4xf64>
  %lw = memref.load %late[%k] : memref<4xf64>
  %p = memref.load %passed[%k] : memref<4xf64>
  %g = arith.mulf %d, %lw : f64
  %g2 = arith.addf %g, %p : f64
  memref.store %g2, %dx[%k] : memref<4xf64>
  memref.dealloc %cache : memref<4x8xf64>
  memref.dealloc %tmp : memref<4xf64>
  memref.dealloc %dead : memref<4xf64>
  memref.dealloc %late : memref<4xf64>
  memref.dealloc %passed : memref<4xf64>
  func.return %sum : f64
}
