// Run at the wrong stage, the pass says which stage it takes and what to run.
// RUN: not tapeflow-opt -p tapeflow-streams %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stream=always},tapeflow-streams' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LATE

// EARLY: error: tapeflow-streams: @diffef is at the Enzyme-gradient stage (Enzyme's caches are plain memref.alloc buffers), but tapeflow-streams takes the layer stage; run tapeflow-raise-tape, tapeflow-regions and tapeflow-layers first
// LATE: error: tapeflow-streams: @diffef is at the scratchpad-bound stage (stream.store/stream.load to scratchpad tiles), past the layer stage tapeflow-streams takes; tapeflow-streams has already run
