// Run at the wrong stage, the pass says which stage it takes and what to run,
// instead of finding no tape loop and exiting 0.
// RUN: not tapeflow-opt -p 'tapeflow-unroll{factor=2}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16},tapeflow-unroll{factor=2}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LATE

// EARLY: error: tapeflow-unroll: @diffef is at the Enzyme-gradient stage (Enzyme's caches are plain memref.alloc buffers), but tapeflow-unroll takes the tape or region stage; run tapeflow-raise-tape first
// LATE: error: tapeflow-unroll: @diffef is at the scratchpad-bound stage (stream.store/stream.load to scratchpad tiles), past the tape or region stage tapeflow-unroll takes; run tapeflow-unroll before tapeflow-layers
