// tapeflow-pipeline is the tapeflow variant's lowering (lowering/pipelines.py),
// pass for pass: the same IR as the passes spelled out.
// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stream=always}' %S/../Inputs/gradient.mlir -o %t.one
// RUN: tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=16 stream=always},tapeflow-streams,tapeflow-spad-bind' %S/../Inputs/gradient.mlir -o %t.spelled
// RUN: diff %t.one %t.spelled
// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 unroll=2 stream=always}' %S/../Inputs/gradient.mlir -o %t.one
// RUN: tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-unroll{factor=2},tapeflow-regions,tapeflow-layers{spad-bytes=16 stream=always},tapeflow-streams,tapeflow-spad-bind' %S/../Inputs/gradient.mlir -o %t.spelled
// RUN: diff %t.one %t.spelled
// A module whose tape is already raised starts after tapeflow-raise-tape.
// RUN: tapeflow-opt -p 'tapeflow-raise-tape,tapeflow-pipeline{spad-bytes=16 unroll=2 stream=always}' %S/../Inputs/gradient.mlir -o %t.raised
// RUN: diff %t.one %t.raised
// RUN: filecheck %s < %t.one
// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stats=true stream=always}' %S/../Inputs/gradient.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: not tapeflow-opt -p 'tapeflow-pipeline{unroll=0}' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=UNROLL
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra,tapeflow-pipeline' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=PLACED
// RUN: not tapeflow-opt -p 'tapeflow-pipeline,tapeflow-pipeline' %S/../Inputs/gradient.mlir 2>&1 | filecheck %s --check-prefix=TWICE

// Unrolled by 2, the 4 iterations of each sweep store 2 values per iteration: a
// 16-byte scratchpad (2 entries) holds one iteration, so 2 FWD tiles of 1 row x 2 slots.
// CHECK:      scf.for
// CHECK:        layer.layer 0 fwd partner 1 -> index, index {
// CHECK-NEXT:     layer.salloc base 0 capacity 16 : !layer.spad<1x2>
// CHECK:          stream.store %{{.*}} slot 0 id 0
// CHECK:          stream.store %{{.*}} slot 1 id 1
// CHECK:          stream.fwd
// CHECK:        layer.layer 1 rev partner 0 -> index, index {
// CHECK:          stream.rev
// CHECK:          stream.load %{{.*}} slot 1 from 1
// CHECK:          stream.load %{{.*}} slot 0 from 0
// CHECK-NOT:  region.
// CHECK-NOT:  tape.

// STATS: tapeflow-raise-tape: @diffef: 1 tapes, 4 values, 32 bytes
// STATS: tapeflow-regions: @diffef: 1 tapes -> 1 regions
// STATS: tapeflow-layers: @diffef: 1 FWD/REV layer pairs, 4 layers executed (scratchpad 16 B)

// UNROLL: tapeflow-opt: error: tapeflow-pipeline: option unroll must be at least 1, got 0
// PLACED: tapeflow-opt: error: tapeflow-pipeline: @diffef is already placed on the CGRA (it holds cgra.kernel ops); run tapeflow-pipeline before tapeflow-to-cgra
// TWICE: tapeflow-opt: error: tapeflow-pipeline: @diffef is at the scratchpad-bound stage (stream.store/stream.load to scratchpad tiles), past the Enzyme-gradient or tape stage tapeflow-pipeline takes; run tapeflow-pipeline before tapeflow-regions
