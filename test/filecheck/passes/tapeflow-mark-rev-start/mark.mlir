// RUN: tapeflow-opt -p tapeflow-mark-rev-start %S/../tapeflow-raise-tape/classify.mlir | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-mark-rev-start,tapeflow-mark-rev-start' %S/../tapeflow-raise-tape/classify.mlir | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stream=always},tapeflow-mark-rev-start' %S/../Inputs/gradient.mlir | filecheck %s --check-prefix=TILED
// RUN: not tapeflow-opt -p tapeflow-mark-rev-start %S/../tapeflow-unroll/no-gradient.mlir 2>&1 | filecheck %s --check-prefix=NOGRAD

// The reverse sweep begins at the first top-level op that reads the seed or
// touches a shadow: in classify.mlir, the mulf of %seed (the call before it passes
// a buffer that is neither). Exactly one op is marked, however often the pass runs.
// CHECK-LABEL: func.func private @diffef
// CHECK-NOT:    tapeflow.rev_start
// CHECK:        func.call @use(%passed) : (memref<4xf64>) -> ()
// CHECK-NEXT:   %d = arith.mulf %seed, %t0 {tapeflow.rev_start} : f64
// CHECK-NOT:    tapeflow.rev_start

// After layering, REV begins with the tile loop around REV layer 1.
// TILED:      layer.layer 0 fwd
// TILED-NOT:  tapeflow.rev_start
// TILED:      layer.layer 1 rev partner 0
// TILED:      } {tapeflow.rev_start}
// TILED-NEXT: func.return

// NOGRAD: error: tapeflow-mark-rev-start: the module has no gradient function
