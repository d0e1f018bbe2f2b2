// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/run-time-loops.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64},tapeflow-streams,tapeflow-spad-bind' %S/Inputs/run-time-loops.mlir | filecheck %s --check-prefix=BOUND

// Loops whose trip count %n is known only at run time. Region %a's REV loop reads
// at n-1-u what FWD wrote at i: proven a mirror for every n, so both loops are
// strip-mined into ceil(n/4) tiles of 4 iterations (8 entries of 64 bytes, 2 per
// iteration), the last one partial, REV visiting the same tiles last first. The
// FWD tile loop runs over the loop's own iterations, to its bound %n, 4 a step,
// and carries each tile's end and row count from the tile before: the first
// tile's, min(4, n), is computed once before it, each next one, hi + min(4, n -
// hi), in the tile's own loop.
// Region %b, of run-time extents, is kept in DRAM like any region that cannot be
// layered: its region.alloc says so and why.
// CHECK-LABEL: func.func private @diffeg
// CHECK:        region.alloc(%{{.*}}) {tapeflow.kept = "REV does not read the elements in the inverse order FWD wrote them"} : !region.region<?, [f64]>
// CHECK:        %[[FIRST:[^ ]+]] = arith.minsi %{{.*}}, %[[TRIP:[^ ]+]] : index
// CHECK:        scf.for %[[T:[^ ]+]] = %{{.*}} to %[[TRIP]] step %{{.*}} iter_args(%[[HI:[^ ]+]] = %[[FIRST]], %{{.*}} = %[[FIRST]]) -> (index, index) {
// CHECK-NEXT:     layer.layer 0 fwd partner 1 -> index, index {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK-NEXT:       scf.for %{{.*}} = %[[T]] to %[[HI]] step %{{.*}} iter_args(
// CHECK-COUNT-2:      region.store
// CHECK-NEXT:         %[[LEFT:[^ ]+]] = arith.subi %[[TRIP]], %[[HI]] : index
// CHECK:              %[[N:[^ ]+]] = arith.minsi %{{.*}}, %[[LEFT]] : index
// CHECK-NEXT:         %[[NEXT:[^ ]+]] = arith.addi %[[HI]], %[[N]] : index
// CHECK-NEXT:         scf.yield %[[NEXT]], %[[N]] : index, index
// CHECK-NEXT:       } {tapeflow.carried_bounds = 2 : i64, tapeflow.rows_per_iteration = 1 : i64}
// CHECK-NEXT:       layer.barrier
// Region %b stays a region read through the cache: no layer around its loops.
// CHECK:        scf.for
// CHECK-NEXT:     memref.load
// CHECK-NEXT:     region.store %{{.*}}, %{{.*}}[%{{.*}}] slot 0 id 0 : f64, !region.region<?, [f64]>
// CHECK:        scf.for
// CHECK-NEXT:     region.load %{{.*}}[%{{.*}}] slot 0 from 0 : !region.region<?, [f64]> -> f64
// REV computes the same trip count from its own bounds, where it runs (here %n
// itself), and the end of REV's first tile, (trip - 1) rem 4 + 1, once before the
// tiles; its tile loop runs over the iteration that ends each tile, from that end
// to it plus the trip count, and carries both bounds, the first tile [0, first),
// each next one [hi, hi + 4).
// CHECK:        %[[RM1:[^ ]+]] = arith.subi %[[RTRIP:[^ ]+]], %{{.*}} : index
// CHECK:        %[[RREM:[^ ]+]] = arith.remsi %[[RM1]], %{{.*}} : index
// CHECK:        %[[RFIRST:[^ ]+]] = arith.addi %[[RREM]], %{{.*}} : index
// CHECK-NEXT:   %[[REND:[^ ]+]] = arith.addi %[[RFIRST]], %[[RTRIP]] : index
// CHECK:        scf.for %{{.*}} = %[[RFIRST]] to %[[REND]] step %{{.*}} iter_args(%[[ULO:[^ ]+]] = %{{.*}}, %[[UHI:[^ ]+]] = %[[RFIRST]], %{{.*}} = %[[RFIRST]]) -> (index, index, index) {
// CHECK-NEXT:     layer.layer 1 rev partner 0 -> index, index, index {
// CHECK-NEXT:       layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK-NEXT:       scf.for %{{.*}} = %[[ULO]] to %[[UHI]] step
// CHECK-COUNT-2:      region.load
// CHECK:              %[[UNEXT:[^ ]+]] = arith.addi %[[UHI]], %{{.*}} : index
// CHECK:              scf.yield %[[UHI]], %[[UNEXT]], %{{.*}} : index, index, index
// CHECK-NEXT:       } {tapeflow.carried_bounds = 3 : i64, tapeflow.rows_per_iteration = 1 : i64}

// STATS:      tapeflow-layers: @diffeg: 1 FWD/REV layer pairs, 0 layers executed (scratchpad 64 B)
// STATS-NEXT:   layer 0/1 %a: 4x2 entries, tile of iterations, runs ceil(trip count / 4) times per run of the loops around it (known at run time)
// STATS-NEXT:   region #1 %b kept in DRAM, read through the cache: REV does not read the elements in the inverse order FWD wrote them

// After streams and binding: %a's tiles go to a slab tape (its size is known only
// at run time) and to the scratchpad; %b keeps its region ops.
// BOUND-LABEL: func.func private @diffeg
// BOUND:        %[[TAPE:[^ ]+]] = stream.alloc slab 4096 : !stream.tape
// BOUND:        %[[B:[^ ]+]] = region.alloc(%{{.*}}) {tapeflow.kept = {{.*}}} : !region.region<?, [f64]>
// BOUND:        stream.store
// BOUND:        stream.fwd %{{.*}} rows %{{.*}} to %[[TAPE]] id 0 : !layer.spad<4x2>
// BOUND:        region.store %{{.*}}, %[[B]]
// BOUND:        region.load %[[B]]
// BOUND:        stream.rev %[[TAPE]] rows %{{.*}} to %{{.*}} of 0 : !layer.spad<4x2>
// BOUND:        stream.load
// BOUND:        region.free %[[B]]
