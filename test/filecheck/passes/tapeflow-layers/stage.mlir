// Run at the wrong stage, the pass says which stage it takes and what to run,
// instead of finding no region and exiting 0.
// RUN: not tapeflow-opt -p tapeflow-layers %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16},tapeflow-layers' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LATE
// RUN: not tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-regions,tapeflow-to-cgra,tapeflow-layers' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=PLACED

// EARLY: tapeflow-opt: error: tapeflow-layers: @diffef is at the Enzyme-gradient stage (Enzyme's caches are plain memref.alloc buffers), but tapeflow-layers takes the region stage; run tapeflow-raise-tape and tapeflow-regions first
// EARLY-NOT: Traceback
// LATE: tapeflow-opt: error: tapeflow-layers: @diffef is at the scratchpad-bound stage (stream.store/stream.load to scratchpad tiles), past the region stage tapeflow-layers takes; tapeflow-layers has already run
// PLACED: tapeflow-opt: error: tapeflow-layers: @diffef is already placed on the CGRA (it holds cgra.kernel ops); run tapeflow-layers before tapeflow-to-cgra
