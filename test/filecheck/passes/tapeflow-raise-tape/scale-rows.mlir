// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape' %s | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s -o %t 2>&1 | filecheck %s --check-prefix=STATS

// A loop nest (a row norm), an scf.if on it, and an in-place update of %y: Enzyme
// caches x[i, j] (through a subview of one row), the norm, and the old y[i] that
// the update overwrites. Each cache becomes a tape of the same shape, written in
// the FWD loop nest and read, at the reversed index, in the REV loop nest.

// CHECK-LABEL: func.func private @diffescale_rows
// CHECK-NOT:    memref.alloc
// CHECK:        %[[X:.*]] = tape.alloc name "load_arg0" : !tape.tape<4x3xf64>
// CHECK-NEXT:   %[[NORM:.*]] = tape.alloc name "for" : !tape.tape<4xf64>
// CHECK-NEXT:   %[[OLD:.*]] = tape.alloc name "load_arg2" : !tape.tape<4xf64>
// FWD: the subview's row offset becomes the tape's first index.
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:      memref.subview
// CHECK:          scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT:       %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x3xf64>
// CHECK-NEXT:       tape.store %[[V]], %[[X]][%[[I]], %[[J]]] id 0 : f64, !tape.tape<4x3xf64>
// CHECK:          tape.store %{{.*}}, %[[NORM]][%[[I]]] id 1 : f64, !tape.tape<4xf64>
// CHECK:          scf.if
// CHECK:          %[[Y:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xf64>
// CHECK-NEXT:     tape.store %[[Y]], %[[OLD]][%[[I]]] id 2 : f64, !tape.tape<4xf64>
// CHECK:          memref.store
// REV: loads name the store they read back.
// CHECK:        scf.for %[[RI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[R:.*]] = arith.subi %{{.*}}, %[[RI]] : index
// CHECK-NEXT:     %{{.*}} = tape.load %[[NORM]][%[[R]]] from 1 : !tape.tape<4xf64> -> f64
// CHECK-NEXT:     %{{.*}} = tape.load %[[OLD]][%[[R]]] from 2 : !tape.tape<4xf64> -> f64
// CHECK:          scf.for %[[RJ:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       %[[R2:.*]] = arith.subi %{{.*}}, %[[RJ]] : index
// CHECK-NEXT:       %{{.*}} = tape.load %[[X]][%[[R]], %[[R2]]] from 0 : !tape.tape<4x3xf64> -> f64
// CHECK:        tape.free %[[OLD]] : !tape.tape<4xf64>
// CHECK-NEXT:   tape.free %[[NORM]] : !tape.tape<4xf64>
// CHECK-NEXT:   tape.free %[[X]] : !tape.tape<4x3xf64>
// CHECK-NEXT:   func.return

// STATS:      tapeflow-raise-tape: @diffescale_rows: 3 tapes, 20 values, 160 bytes
// STATS-NEXT:   tape load_arg0 {{ *}}!tape.tape<4x3xf64> {{ *}}12 values {{ *}}96 bytes  1 store(s), 1 load(s)
// STATS-NEXT:   tape for {{ *}}!tape.tape<4xf64> {{ *}}4 values {{ *}}32 bytes  1 store(s), 1 load(s)
// STATS-NEXT:   tape load_arg2 {{ *}}!tape.tape<4xf64> {{ *}}4 values {{ *}}32 bytes  1 store(s), 1 load(s)

func.func @scale_rows(%x: memref<4x3xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %norm = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %x[%i, %j] : memref<4x3xf64>
      %sq = arith.mulf %v, %v : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %big = arith.cmpf ogt, %norm, %one : f64
    %f = scf.if %big -> (f64) {
      %s = math.sin %norm : f64
      scf.yield %s : f64
    } else {
      scf.yield %norm : f64
    }
    %old = memref.load %y[%i] : memref<4xf64>
    %new = arith.mulf %old, %f : f64
    memref.store %new, %y[%i] : memref<4xf64>
  }
  func.return
}

func.func @scale_rows_grad(%x: memref<4x3xf64>, %dx: memref<4x3xf64>, %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @scale_rows(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x3xf64>, memref<4x3xf64>, memref<4xf64>, memref<4xf64>) -> ()
  func.return
}
