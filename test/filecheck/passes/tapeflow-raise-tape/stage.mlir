// Run at the wrong stage, the pass says which stage it takes.
// RUN: not tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-raise-tape' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tapeflow-opt -p 'tapeflow-mark-tape-buffers,tapeflow-raise-tape' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=BASELINE

// TWICE: error: tapeflow-raise-tape: @diffef is at the tape stage (tape.alloc/store/load ops), past the Enzyme-gradient stage tapeflow-raise-tape takes; tapeflow-raise-tape has already run
// BASELINE: error: tapeflow-raise-tape: @diffef is at the Enzyme-baseline stage (its cache buffers are memrefs marked 'tapeflow.tape'), but tapeflow-raise-tape takes the Enzyme-gradient stage; run it on the Enzyme gradient, not on the baseline
