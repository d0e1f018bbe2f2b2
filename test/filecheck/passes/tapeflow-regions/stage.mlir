// Run at the wrong stage, the pass says which stage it takes and what to run.
// RUN: not tapeflow-opt -p tapeflow-regions %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-regions,tapeflow-regions' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tapeflow-opt -p 'tapeflow-mark-tape-buffers,tapeflow-regions' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=BASELINE

// EARLY: error: tapeflow-regions: @diffef is at the Enzyme-gradient stage (Enzyme's caches are plain memref.alloc buffers), but tapeflow-regions takes the tape stage; run tapeflow-raise-tape first
// TWICE: error: tapeflow-regions: @diffef is at the region stage (region.alloc/store/load ops, no layers), past the tape stage tapeflow-regions takes; tapeflow-regions has already run
// BASELINE: error: tapeflow-regions: @diffef is at the Enzyme-baseline stage (its cache buffers are memrefs marked 'tapeflow.tape'), but tapeflow-regions takes the tape stage; run it on the Enzyme gradient, not on the baseline
