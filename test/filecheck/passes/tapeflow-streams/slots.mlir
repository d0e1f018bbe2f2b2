// One layout rule (tapeflow_dialects/layout.py): every tape value is one 8-byte
// word, the i1 too. The DRAM tape of a region of [f64, i1] structs over 3x8
// iterations is 3*8*2*8 = 384 bytes, the words the 4x2 scratchpad tiles spill
// (6 tiles of 64 bytes); a region kept by tapeflow-layers gets no stream tape.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams' %S/../tapeflow-layers/Inputs/mixed.mlir | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams,tapeflow-spad-bind' %S/../tapeflow-layers/Inputs/mixed.mlir | filecheck %s --check-prefix=BOUND
// RUN: not tapeflow-opt %S/Inputs/wide-slot.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not tapeflow-opt %S/Inputs/odd-tape.mlir 2>&1 | filecheck %s --check-prefix=VERIFY2
// RUN: not tapeflow-opt %S/Inputs/small-tape.mlir 2>&1 | filecheck %s --check-prefix=VERIFY3

// CHECK:     %[[M:[^ ]+]] = region.alloc : !region.region<3x8, [f64, i1]>
// CHECK-NEXT: stream.alloc bytes 384 : !stream.tape
// CHECK-NEXT: region.alloc {tapeflow.kept
// CHECK-NOT:  stream.alloc

// After binding, the kept region keeps its accesses (DRAM, through the cache).
// BOUND-NOT:  region.alloc : !region.region<3x8, [f64, i1]>
// BOUND:      stream.alloc bytes 384 : !stream.tape
// BOUND-NEXT: %[[K:[^ ]+]] = region.alloc {tapeflow.kept
// BOUND:      stream.store %{{.*}} slot 1 id 1 : i1, !layer.spad<4x2>
// BOUND:      region.store %{{.*}}, %[[K]]
// BOUND:      region.load %[[K]]
// BOUND:      stream.load {{.*}} slot 1 from 1 : !layer.spad<4x2> -> i1
// BOUND:      region.free %[[K]]

// VERIFY: error: region slot 0 cannot hold a tape value: i128 is 128 bits wide, more than one 8-byte tape word (every slot is one 8-byte word)
// VERIFY2: 'stream.alloc' size 36 is not a whole number of 8-byte tape words
// VERIFY3: 'stream.fwd' moves 4 rows of !layer.spad<4x2> (64 bytes) onto a DRAM tape of 40 bytes; the tape must hold at least one tile (8 bytes per entry)
