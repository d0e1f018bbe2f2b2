// tapeflow-variant{variant=...} is the variant's whole pipeline string
// (lowering/pipelines.py, the one the simulator and the benchmarks run), from a
// primal with enzyme.autodiff or an Enzyme gradient. Each is checked against the
// passes it expands to, spelled out.
// RUN: tapeflow-opt -p 'tapeflow-variant{variant=tapeflow spad-bytes=64 stream=always}' %S/../../../../examples/fig9-conv.mlir -o %t.variant
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams,tapeflow-spad-bind,tapeflow-mark-rev-start,tapeflow-to-cgra' %S/../../../../examples/fig9-conv.mlir -o %t.spelled
// RUN: diff %t.variant %t.spelled
// RUN: filecheck %s --check-prefix=TAPEFLOW < %t.variant
// RUN: tapeflow-opt -p 'tapeflow-variant{variant=tapeflow spad-bytes=64}' %S/../../../../examples/fig9-conv.mlir -o %t.variant
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64},tapeflow-streams,tapeflow-spad-bind,tapeflow-mark-rev-start,tapeflow-to-cgra' %S/../../../../examples/fig9-conv.mlir -o %t.spelled
// RUN: diff %t.variant %t.spelled
// RUN: tapeflow-opt -p 'tapeflow-variant{variant=enzyme unroll=2 rows=2 cols=3}' %S/../../../../examples/fig9-conv.mlir -o %t.variant
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-unroll{factor=2},tapeflow-sink-tape,tapeflow-mark-rev-start,tapeflow-to-cgra{rows=2 cols=3}' %S/../../../../examples/fig9-conv.mlir -o %t.spelled
// RUN: diff %t.variant %t.spelled
// RUN: filecheck %s --check-prefix=ENZYME < %t.variant
// From the Enzyme gradient (tapeflow-enzyme has nothing to do):
// RUN: tapeflow-opt -p 'tapeflow-variant{variant=aos fadd=7}' %S/../Inputs/gradient.mlir -o %t.variant
// RUN: tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-regions,tapeflow-mark-rev-start,tapeflow-to-cgra{fadd=7}' %S/../Inputs/gradient.mlir -o %t.spelled
// RUN: diff %t.variant %t.spelled
// RUN: filecheck %s --check-prefix=AOS < %t.variant
// RUN: tapeflow-opt -p 'tapeflow-variant{variant=enzyme}' %S/../Inputs/gradient.mlir | filecheck %s --check-prefix=BASELINE
// Bad options and stages: the pass and the option by name, no traceback.
// RUN: not tapeflow-opt -p 'tapeflow-variant{variant=soa}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not tapeflow-opt -p tapeflow-variant %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tapeflow-opt -p 'tapeflow-variant{variant=aos unroll=0}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=UNROLL
// RUN: not tapeflow-opt -p 'tapeflow-variant{variant=aos rows=100000 cols=100000}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not tapeflow-opt -p 'tapeflow-pipeline,tapeflow-variant{variant=aos}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=LOWERED

// TAPEFLOW-LABEL: func.func private @diffeconv
// TAPEFLOW:         layer.layer 0 fwd partner 1 -> index, index {
// TAPEFLOW:           cgra.kernel 0 rows 4 cols 4 ii {{[0-9]+}} -> index, index {
// TAPEFLOW:             cgra.store %{{.*}} spad slot 0 at
// TAPEFLOW:         layer.layer 1 rev partner 0
// TAPEFLOW:         } {tapeflow.rev_start}

// The baseline keeps Enzyme's four cache buffers (raised, unrolled, sunk back).
// ENZYME-LABEL:  func.func private @diffeconv
// ENZYME-COUNT-4:  memref.alloc() {tapeflow.tape} : memref<16xf64>
// ENZYME:          cgra.kernel 0 rows 2 cols 3 ii
// ENZYME:          } {tapeflow.rev_start}
// ENZYME-NOT:      tape.alloc
// ENZYME-NOT:      layer.

// AOS:      %[[R:.*]] = region.alloc : !region.region<4, [f64]>
// AOS:      cgra.kernel 0 rows 4 cols 4 ii 1 {
// AOS:        cgra.store %{{.*}}, %[[R]][%{{.*}}] cache slot 0
// AOS:      } {tapeflow.rev_start}
// AOS-NOT:  layer.

// BASELINE:     %cache = memref.alloc() {tapeflow.tape} : memref<4xf64>
// BASELINE:     cgra.kernel 0 rows 4 cols 4
// BASELINE-NOT: tape.alloc

// UNKNOWN: tapeflow-opt: error: tapeflow-variant: unknown variant 'soa' (option variant); choose from enzyme, aos, tapeflow
// MISSING: tapeflow-opt: error: -p: pass 'tapeflow-variant' requires argument "variant"
// UNROLL: tapeflow-opt: error: tapeflow-variant: option unroll must be at least 1, got 0
// HUGE: tapeflow-opt: error: tapeflow-variant: option rows=100000 is over the limit of 64 PEs a side (a 64x64 grid at most)
// LOWERED: tapeflow-opt: error: tapeflow-variant: @diffef is at the scratchpad-bound stage (stream.store/stream.load to scratchpad tiles), past the Enzyme-gradient stage tapeflow-variant takes; run tapeflow-variant before tapeflow-raise-tape
