// RUN: tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-sink-tape' %S/../tapeflow-raise-tape/classify.mlir | filecheck %s
// RUN: not tapeflow-opt -p tapeflow-sink-tape %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-regions,tapeflow-sink-tape' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LATE

// Raising then sinking gives Enzyme's layout back, marked as the tape: one buffer
// per cached value, of the tape's shape, its accesses at the tape's indices (the
// subview Enzyme wrote through is folded into them, as raising folded it), the
// tape's free a dealloc (%leak, which Enzyme never freed, is freed before return).

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[T:.*]] = memref.alloc() {tapeflow.tape} : memref<4x8xf64>
// CHECK-NEXT:   %[[L:.*]] = memref.alloc() {tapeflow.tape} : memref<4xindex>
// CHECK-NEXT:   %tmp = memref.alloc() : memref<4xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK-NOT:      memref.subview
// CHECK:          %[[COL:.*]] = arith.addi
// CHECK-NEXT:     memref.store %{{.*}}, %[[T]][%[[I]], %[[COL]]] : memref<4x8xf64>
// CHECK-NEXT:     memref.store %[[I]], %[[L]][%[[I]]] : memref<4xindex>
// CHECK:        memref.load %[[T]][%{{.*}}, %{{.*}}] : memref<4x8xf64>
// CHECK-NEXT:   memref.load %[[L]][%{{.*}}] : memref<4xindex>
// CHECK:        memref.dealloc %[[T]] : memref<4x8xf64>
// CHECK:        memref.dealloc %[[L]] : memref<4xindex>
// CHECK-NEXT:   func.return
// CHECK-NOT:    tape.

// EARLY: error: tapeflow-sink-tape: @diffef is at the Enzyme-gradient stage (Enzyme's caches are plain memref.alloc buffers), but tapeflow-sink-tape takes the tape stage; run tapeflow-raise-tape first
// LATE: error: tapeflow-sink-tape: @diffef is at the region stage (region.alloc/store/load ops, no layers), past the tape stage tapeflow-sink-tape takes; run tapeflow-sink-tape before tapeflow-regions
