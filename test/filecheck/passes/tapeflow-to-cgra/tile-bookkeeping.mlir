// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=128 stream=always},tapeflow-to-cgra' %S/Inputs/tiled-nests.mlir | filecheck %s --check-prefix=ROWS
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 stream=always},tapeflow-to-cgra' %S/Inputs/tiled-nests.mlir | filecheck %s --check-prefix=GRAM

// What a tile's bookkeeping costs once placed: each kernel run once costs its
// schedule, so the index arithmetic of a tile belongs in as few of them as it can.

// @rows on 128 B: tiles of 3 rows of 5 values (the last tile of 2). A REV tile's
// bounds, its row count and its rows' first rows are one kernel before the
// stream op: the first rows, computed after the stream op, join the kernel of
// the bounds across it (a stream op defines nothing). The REV tile loop's index
// is the tile's end, so the kernel computes the start alone, min(end, 3) before
// it; the row count is the tile's iterations (the bounds' difference, min(end,
// 3), without a subtraction) times 5, the multiply taken inside the clamp,
// min(15, end * 5), so that it does not wait for the min the start reads (a
// value read by two ops costs a hop). Each group's first row is (end - 1) * 5
// plus its first row, 2 or 3 ops: the kernel's schedule is 3 cycles.
// ROWS-LABEL: func.func private @differows
// ROWS:         layer.layer 1 rev partner 0 {
// ROWS-NEXT:      %[[TILE:[^ ]+]] = layer.salloc
// ROWS:           %[[LO:[^ ,]+]], %[[ROWS:[^ ,]+]], %{{[^ ,]+}}, %{{[^ ,]+}} = cgra.kernel {{[0-9]+}} rows 4 cols 4 ii {{[0-9]+}} -> index, index, index, index {
// ROWS-NEXT:        %[[N:[^ ]+]] = cgra.op "arith.minsi"(%[[HI:[^,]+]], %{{[^)]+}}) {{.*}} cycle 0
// ROWS-NEXT:        cgra.op "arith.subi"(%[[HI]], %[[N]]) {{.*}} cycle 1
// ROWS-NEXT:        %[[SCALED:[^ ]+]] = cgra.op "arith.muli"(%[[HI]], %{{[^)]+}}) {{.*}} cycle 0
// ROWS-NEXT:        cgra.op "arith.minsi"(%{{[^,]+}}, %[[SCALED]]) {{.*}} cycle 1
// ROWS-NEXT:        %[[FIRST:[^ ]+]] = cgra.op "arith.subi"(%[[HI]], %{{[^)]+}}) {{.*}} cycle 0
// ROWS-NEXT:        cgra.op "arith.muli"(%[[FIRST]], %{{[^)]+}}) {{.*}} cycle 1
// ROWS-NEXT:        %[[SECOND:[^ ]+]] = cgra.op "arith.subi"(%[[HI]], %{{[^)]+}}) {{.*}} cycle 0
// ROWS-NEXT:        %[[SCALED2:[^ ]+]] = cgra.op "arith.muli"(%[[SECOND]], %{{[^)]+}}) {{.*}} cycle 1
// ROWS-NEXT:        cgra.op "arith.addi"(%{{[^,]+}}, %[[SCALED2]]) {{.*}} cycle 2
// ROWS-NEXT:        cgra.yield
// ROWS-NEXT:      }
// ROWS-NEXT:      stream.rev %{{[^ ]+}} rows %[[ROWS]] to %[[TILE]] of 0 : !layer.spad<15x1>
// ROWS-NEXT:      scf.for %{{[^ ]+}} = %[[LO]] to %[[HI]] step

// @gram on 64 B: the k loop's 8 iterations in two tiles of 4, each whole. Its
// bounds are constants though the nest is triangular (proven at run time): the
// tiles' bounds need no clamp and the streams' row counts are the constant 4.
// The tile loop steps over the loop's own iterations from its lower bound, so its
// index is the tile's first iteration, and carries the tile's end (and row
// count) from the tile before: the tile's loop kernel computes the next end,
// `hi + 4`, beside its work, in FWD and in REV alike (whole tiles: REV's tile at
// `s` is FWD's at `s`), and no kernel runs before a tile's loop. The loop that
// counted the triangular region's extent, unused once the region is streamed, is
// erased rather than placed. The triangle's extents are functions of the outer
// index alone, so its DRAM tape is reserved once at the size of its entries: 10
// pairs (i <= j < 4) of 8 iterations of two 8-byte values, 1280 bytes.
// GRAM-LABEL: func.func private @diffegram
// GRAM-NOT:     arith.maxsi
// GRAM:         stream.alloc bytes 1280
// GRAM:         scf.for %[[LO:[^ ]+]] = %{{[^ ]+}} to %{{[^ ]+}} step %{{[^ ]+}} iter_args(%{{[^ ]+}} = %{{[^ ]+}}, %[[HI:[^ ]+]] = %{{[^ ]+}}, %[[COUNT:[^ ]+]] = %{{[^ ]+}})
// GRAM-NEXT:      layer.layer 0 fwd partner 1 -> f64, index, index {
// GRAM-NOT:         cgra.kernel
// GRAM:             scf.for %{{[^ ]+}} = %[[LO]] to %[[HI]] step
// GRAM-NEXT:          cgra.kernel {{[0-9]+}} rows 4 cols 4 ii 5 -> f64, index, index {
// GRAM:                 cgra.op "arith.addi"(%[[HI]], %{{[^)]+}})
// GRAM:           stream.fwd %{{[^ ]+}} rows %[[COUNT]] to
// GRAM:         scf.for %[[RLO:[^ ]+]] = %{{[^ ]+}} to %{{[^ ]+}} step %{{[^ ]+}} iter_args(%[[RHI:[^ ]+]] = %{{[^ ]+}}, %[[RROWS:[^ ]+]] = %{{[^ ]+}})
// GRAM-NEXT:      layer.layer 1 rev partner 0 -> index, index {
// GRAM-NEXT:        layer.salloc
// GRAM-NEXT:        stream.rev %{{[^ ]+}} rows %[[RROWS]] to
// GRAM:             scf.for %{{[^ ]+}} = %[[RLO]] to %[[RHI]] step
// GRAM-NEXT:          cgra.kernel {{[0-9]+}} rows 4 cols 4 ii 16 -> index, index {
