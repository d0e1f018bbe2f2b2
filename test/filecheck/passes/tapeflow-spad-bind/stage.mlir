// Run at the wrong stage, the pass says which stage it takes and what to run.
// RUN: not tapeflow-opt -p tapeflow-spad-bind %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stream=always},tapeflow-spad-bind' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LATE

// EARLY: error: tapeflow-spad-bind: @diffef is at the Enzyme-gradient stage (Enzyme's caches are plain memref.alloc buffers), but tapeflow-spad-bind takes the stream stage; run tapeflow-raise-tape, tapeflow-regions, tapeflow-layers and tapeflow-streams first
// LATE: error: tapeflow-spad-bind: @diffef is at the scratchpad-bound stage (stream.store/stream.load to scratchpad tiles), past the stream stage tapeflow-spad-bind takes; tapeflow-spad-bind has already run
