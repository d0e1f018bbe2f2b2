// Conditional pieces: when one iteration's values do not fit a tile (16 bytes
// here, 2 entries, for 3 values) the loop is not tiled, and the stores under an
// scf.if become a FWD layer inside the branch, whose REV
// partner sits at the head of the REV branch (read under the condition Enzyme
// cached). Each region is its own stack: the conditional one is pushed and popped
// only when its branch runs.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=16 stream=always stats=true}' %S/Inputs/branches.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// CHECK:      scf.for
// CHECK:        layer.layer [[UF:[0-9]+]] fwd partner [[UR:[0-9]+]] {
// CHECK-NEXT:     layer.salloc base 0 capacity 16 : !layer.spad<1x1>
// CHECK-NEXT:     region.store %{{.*}} slot 0 id 0 : f64, !region.region<8, [f64]>
// CHECK-NEXT:     layer.barrier
// CHECK:        scf.if
// CHECK:          layer.layer [[CF:[0-9]+]] fwd partner [[CR:[0-9]+]] {
// CHECK-NEXT:       layer.salloc base 0 capacity 16 : !layer.spad<1x2>
// CHECK-NEXT:       region.store %{{.*}} slot 0 id 0 : f64
// CHECK-NEXT:       region.store %{{.*}} slot 1 id 1 : i1
// CHECK-NEXT:       layer.barrier
// CHECK:      scf.for
// CHECK:        layer.layer [[UR]] rev partner [[UF]] -> f64 {
// CHECK:        scf.if
// CHECK-NEXT:     layer.layer [[CR]] rev partner [[CF]] -> f64, i1 {
// CHECK-NEXT:       layer.salloc base 0 capacity 16 : !layer.spad<1x2>
// CHECK-NEXT:       region.load %{{.*}} slot 0 from 0
// CHECK-NEXT:       region.load %{{.*}} slot 1 from 1
// CHECK-NEXT:       layer.barrier

// STATS: tapeflow-layers: @diffef: 2 FWD/REV layer pairs, 32 layers executed (scratchpad 16 B)
// STATS-DAG: 1x1 entries, piece of an iteration, runs 8 times
// STATS-DAG: 1x2 entries, conditional piece of an iteration, runs at most 8 times

// Through streams and scratchpad binding: the conditional layer spills and
// preloads its 1x2 tile (16 bytes, one 8-byte word per slot, the i1 too) inside
// the branches; the DRAM tape of %c holds 8 x 2 words.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=16 stream=always},tapeflow-streams,tapeflow-spad-bind' %S/Inputs/branches.mlir | filecheck %s --check-prefix=BOUND
// BOUND-DAG: stream.alloc bytes 64 : !stream.tape
// BOUND-DAG: stream.alloc bytes 128 : !stream.tape
// BOUND:     scf.if
// BOUND:       stream.store %{{.*}} slot 1 id 1 : i1, !layer.spad<1x2>
// BOUND-NEXT:  arith.constant 1 : index
// BOUND-NEXT:  stream.fwd
// BOUND:     scf.if
// BOUND:       stream.rev
// BOUND:       stream.load {{.*}} slot 1 from 1 : !layer.spad<1x2> -> i1

// With room for two iterations (64 bytes, 8 entries) the loop is strip-mined into
// tiles that hold both regions: 3 entries per iteration, the conditional ones left
// empty when the branch does not run (REV reads them under the same condition).
// Both regions' values go to one DRAM tape of 8 x 3 words.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always stats=true},tapeflow-streams,tapeflow-spad-bind' %S/Inputs/branches.mlir 2>%t.tiled | filecheck %s --check-prefix=TILED
// RUN: filecheck %s --check-prefix=TILED-STATS < %t.tiled
// TILED:     stream.alloc bytes 192 : !stream.tape
// TILED-NOT: stream.alloc
// TILED:     layer.salloc base 0 capacity 64 : !layer.spad<2x3>
// TILED:     stream.fwd %{{.*}} rows %{{.*}} to
// TILED-STATS: @diffef: 1 FWD/REV layer pairs, 8 layers executed (scratchpad 64 B)
// TILED-STATS: 2x3 entries, tile of iterations, runs 4 times
