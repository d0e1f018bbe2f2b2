// The tape stage (and the Enzyme baseline) as upstream MLIR: tapes become the
// buffers Enzyme made, tape.store/load become memref.store/load, tape.free a
// dealloc, and the baseline's tapeflow.tape marks are dropped.
// RUN: tapeflow-opt -p tapeflow-enzyme,tapeflow-raise-tape,tapeflow-to-upstream %S/../tapeflow-enzyme/logsum.mlir | filecheck %s
// RUN: tapeflow-opt -p tapeflow-enzyme,tapeflow-mark-tape-buffers,tapeflow-to-upstream %S/../tapeflow-enzyme/logsum.mlir | filecheck %s

// CHECK-NOT:   tape.
// CHECK-NOT:   tapeflow.
// CHECK-LABEL: func.func private @diffe
// CHECK:         %[[T:.*]] = memref.alloc() : memref<[[SHAPE:.*]]>
// CHECK:         memref.store %{{.*}}, %[[T]][%{{.*}}] : memref<[[SHAPE]]>
// CHECK:         memref.load %[[T]][%{{.*}}] : memref<[[SHAPE]]>
// CHECK:         memref.dealloc %[[T]] : memref<[[SHAPE]]>
// CHECK-NOT:   tape.
// CHECK-NOT:   tapeflow.
