// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/Inputs/two-loops.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=4096 stream=always}' %S/Inputs/two-loops.mlir | filecheck %s --check-prefix=BIG
// RUN: not tapeflow-opt -p 'tapeflow-layers{spad-bytes=12 stream=always}' %S/Inputs/two-loops.mlir 2>&1 | filecheck %s --check-prefix=BADSIZE
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=48 stream=always}' %S/Inputs/two-loops.mlir | filecheck %s --check-prefix=PARTIAL

// 64 bytes hold 8 entries. Loop A stores 2 values per iteration: tiles of 4
// iterations, 2 tiles, a 4x2 tile each; its REV loop is strip-mined into the same
// tiles, the last FWD tile first. Loop B stores 9 values per iteration: its body
// is cut into a piece of 8 stores and a piece of 1; their REV partners gather the
// loads at the head of B's REV body, the second piece's partner first.

// CHECK-LABEL: func.func private @diffef
// The FWD tile loop steps over the loop's own iterations, a tile's worth a step:
// its index is the tile's first iteration. The loop is innermost: the tile loop
// carries each tile's end and row count from the tile before, whose loop computes
// them beside its work (8 iterations in tiles of 4: every tile is full, the next
// end `hi + 4`, not clamped to the trip, the row count 4).
// CHECK:        %{{.*}}, %{{.*}} = scf.for %[[T:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[HI:[^ ]+]] = %{{.*}}, %[[ROWS:[^ ]+]] = %{{.*}}) -> (index, index) {
// CHECK-NEXT:     %{{.*}}, %{{.*}} = layer.layer 0 fwd partner 1 -> index, index {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK-NEXT:       %[[NEXT:[^ ]+]], %{{.*}} = scf.for %{{.*}} = %[[T]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[HI]], %{{.*}} = %[[ROWS]]) -> (index, index) {
// CHECK-COUNT-2:      region.store
// CHECK:              %[[HI4:[^ ]+]] = arith.addi %[[HI]], %{{.*}} : index
// CHECK:              scf.yield %[[HI4]], %{{.*}} : index, index
// CHECK-NEXT:       } {tapeflow.carried_bounds = 2 : i64, tapeflow.rows_per_iteration = 1 : i64}
// CHECK-NEXT:       layer.barrier %[[NEXT]], %{{.*}} : index, index
// CHECK:        scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     memref.load
// CHECK-NEXT:     layer.layer 2 fwd partner 3 {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<1x8>
// CHECK-COUNT-8:    region.store
// CHECK-NEXT:       layer.barrier
// CHECK-NEXT:     }
// CHECK-NEXT:     arith.addf
// CHECK-NEXT:     layer.layer 4 fwd partner 5 {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<1x1>
// CHECK-NEXT:       region.store %{{.*}} slot 8 id 8
// CHECK-NEXT:       layer.barrier
// CHECK:        scf.for
// CHECK-NEXT:     arith.subi
// CHECK-NEXT:     %[[Q:[^ ]+]] = layer.layer 5 rev partner 4 -> f64 {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<1x1>
// CHECK-NEXT:       %[[Q1:[^ ]+]] = region.load %{{.*}} slot 8 from 8
// CHECK-NEXT:       layer.barrier %[[Q1]] : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     %[[P:[^ ]+]], %[[S4:[^ ]+]] = layer.layer 3 rev partner 2 -> f64, f64 {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<1x8>
// CHECK-NEXT:       region.load %{{.*}} slot 0 from 0
// CHECK-NEXT:       region.load %{{.*}} slot 4 from 4
// CHECK-NEXT:       layer.barrier
// CHECK-NEXT:     }
// CHECK-NEXT:     arith.addf %[[P]], %[[Q]] : f64
// REV's tile at u = 0, 4 undoes FWD's at 4 - u: it ends at 4 + u (4, the end of
// REV's first tile, the same for every tile) and starts 4 before (full tiles: not
// clamped to 0), at u: FWD's own bounds, its end carried as FWD's is.
// CHECK:        scf.for %[[U:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[UHI:[^ ]+]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, index) {
// CHECK-NEXT:     layer.layer 1 rev partner 0 -> index, index {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK-NEXT:       scf.for %{{.*}} = %[[U]] to %[[UHI]] step
// CHECK-COUNT-2:      region.load
// CHECK:              %[[UHI4:[^ ]+]] = arith.addi %[[UHI]], %{{.*}} : index
// CHECK:              scf.yield %[[UHI4]], %{{.*}} : index, index
// CHECK-NEXT:       } {tapeflow.carried_bounds = 2 : i64, tapeflow.rows_per_iteration = 1 : i64}

// STATS:      tapeflow-layers: @diffef: 3 FWD/REV layer pairs, 12 layers executed (scratchpad 64 B)
// STATS-NEXT:   layer 0/1 %a: 4x2 entries, tile of iterations, runs 2 times
// STATS-NEXT:   layer 2/3 %b: 1x8 entries, piece of an iteration, runs 2 times
// STATS-NEXT:   layer 4/5 %b: 1x1 entries, piece of an iteration, runs 2 times

// With 4096 bytes every loop is one tile.
// BIG:     layer.salloc base 0 capacity 4096 : !layer.spad<8x2>
// BIG:     layer.salloc base 0 capacity 4096 : !layer.spad<2x9>

// 48 bytes: tiles of 3 of loop A's 8 iterations, the last holding 2. FWD's tile at
// t = 0, 3, 6 runs [t, hi): the first tile's end, min(3, 8) = 3, and its row count
// are constants; each tile's loop computes the next's, hi + min(3, 8 - hi). REV's
// tile loop steps over the iteration that ends each tile, h = 2, 5, 8 ((8 - 1) rem
// 3 + 1 = 2, where REV's first tile, the partial one, ends; to 2 + 8 = 10), and
// carries both bounds, the first tile [0, 2) of 2 rows, each next one [hi, hi + 3)
// of 3 (every REV tile after the first is full).
// PARTIAL:      scf.for %[[T:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[HI:[^ ]+]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, index) {
// PARTIAL-NEXT:   layer.layer 0 fwd partner 1 -> index, index {
// PARTIAL-NEXT:     layer.salloc
// PARTIAL-NEXT:     scf.for %{{.*}} = %[[T]] to %[[HI]] step
// PARTIAL:          %[[LEFT:[^ ]+]] = arith.subi %{{.*}}, %[[HI]] : index
// PARTIAL:          %[[N:[^ ]+]] = arith.minsi %{{.*}}, %[[LEFT]] : index
// PARTIAL-NEXT:     %[[NEXT:[^ ]+]] = arith.addi %[[HI]], %[[N]] : index
// PARTIAL-NEXT:     scf.yield %[[NEXT]], %[[N]] : index, index
// PARTIAL:        %[[ZERO:[^ ]+]] = arith.constant 0 : index
// PARTIAL-NEXT:   %[[TWO:[^ ]+]] = arith.constant 2 : index
// PARTIAL-NEXT:   %[[ROWS:[^ ]+]] = arith.constant 2 : index
// PARTIAL-NEXT:   %[[H0:[^ ]+]] = arith.constant 2 : index
// PARTIAL-NEXT:   %[[TEN:[^ ]+]] = arith.constant 10 : index
// PARTIAL-NEXT:   %[[THREE:[^ ]+]] = arith.constant 3 : index
// PARTIAL-NEXT: scf.for %{{.*}} = %[[H0]] to %[[TEN]] step %[[THREE]] iter_args(%[[ULO:[^ ]+]] = %[[ZERO]], %[[UHI:[^ ]+]] = %[[TWO]], %{{.*}} = %[[ROWS]]) -> (index, index, index) {
// PARTIAL-NEXT:   layer.layer 1 rev partner 0 -> index, index, index {
// PARTIAL-NEXT:     layer.salloc
// PARTIAL-NEXT:     scf.for %{{.*}} = %[[ULO]] to %[[UHI]] step
// PARTIAL:          %[[UNEXT:[^ ]+]] = arith.addi %[[UHI]], %{{.*}} : index
// PARTIAL:          scf.yield %[[UHI]], %[[UNEXT]], %{{.*}} : index, index, index

// BADSIZE: error: tapeflow-layers: spad-bytes must be a positive multiple of 8, got 12

// A region the layers cannot stream back as a stack stays a correct region in DRAM,
// read through the cache, marked `tapeflow.kept` with the reason, and reported by
// stats=true; the pass never stops on a gradient (more in kept.mlir).
// RUN: tapeflow-opt -p 'tapeflow-layers{stats=true}' %S/Inputs/not-mirrored.mlir 2>&1 | filecheck %s --check-prefix=MIRROR
// MIRROR: tapeflow-layers: @diffef: 0 FWD/REV layer pairs, 0 layers executed (scratchpad 512 B)
// MIRROR-NEXT: region #0 %a kept in DRAM, read through the cache: the REV loops do not mirror the FWD loops (REV does not read the elements in the inverse order FWD wrote them), so its tiles could not be streamed back as a stack
// MIRROR: region.alloc {tapeflow.kept = "the REV loops do not mirror the FWD loops

// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=64 stats=true}' %S/Inputs/overwrite.mlir 2>&1 | filecheck %s --check-prefix=OVERWRITE
// OVERWRITE: region #0 {{.*}} kept in DRAM, read through the cache: the REV loops do not mirror the FWD loops (FWD writes some tape element more than once (the last write would win))
// OVERWRITE-NOT: stream.alloc
// OVERWRITE: region.alloc {tapeflow.kept

// A tape stored under scf.if: its loop is tiled, the entries of iterations whose
// branch did not run stay empty, and REV reads them under its own branch.
// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stream=always stats=true}' %S/Inputs/ifstore.mlir 2>&1 | filecheck %s --check-prefix=IFSTORE
// IFSTORE: layer 0/1 !region.region<8, [f64]>: 2x1 entries, tile of iterations, runs 4 times
// IFSTORE: layer.layer 0 fwd partner 1 {
// IFSTORE: scf.if
// IFSTORE-NEXT: arith.mulf
// IFSTORE-NEXT: stream.store
// IFSTORE: layer.layer 1 rev partner 0 {
// IFSTORE: stream.rev
// IFSTORE: scf.if
// IFSTORE-NEXT: stream.load

// RUN: tapeflow-opt -p 'tapeflow-pipeline{spad-bytes=16 stats=true}' %S/Inputs/twoloops.mlir 2>&1 | filecheck %s --check-prefix=TWOLOOPS
// TWOLOOPS: region #0 {{.*}} kept in DRAM, read through the cache: it is stored in 2 loop nests, so its tiles could not be streamed back as one stack
