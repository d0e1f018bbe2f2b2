// The pass never stops on a gradient: a region whose REV loop does not mirror
// its FWD loop (%k, written 3x8, read 3x10 through remsi) is kept in DRAM, read
// through the cache (`tapeflow.kept` with the reason, and a stats line), and the
// rest is still layered -- here %m's loop is tiled although the kept region's
// store sits in the same loop body (a layer may hold a kept region's accesses,
// which are plain memory accesses).
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/Inputs/mixed.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// CHECK:      %[[K:[^ ]+]] = region.alloc {tapeflow.kept = "the REV loops do not mirror the FWD loops (FWD runs (3, 8) iterations and REV (3, 10)), so its tiles could not be streamed back as a stack"} : !region.region<3x8, [f64]>
// CHECK:      layer.layer 0 fwd partner 1 -> index, index {
// CHECK-NEXT:   layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// CHECK:        scf.for
// CHECK:          region.store %{{.*}} slot 0 id 0 : f64, !region.region<3x8, [f64, i1]>
// CHECK-NEXT:     region.store %{{.*}} slot 1 id 1 : i1, !region.region<3x8, [f64, i1]>
// CHECK:          region.store %{{.*}}, %[[K]]
// CHECK:      region.load %[[K]]
// CHECK:      layer.layer 1 rev partner 0 -> index, index {

// STATS:      tapeflow-layers: @diffef: 1 FWD/REV layer pairs, 12 layers executed (scratchpad 64 B)
// STATS-NEXT:   layer 0/1 %m: 4x2 entries, tile of iterations, runs 6 times
// STATS-NEXT:   region #1 %k kept in DRAM, read through the cache: the REV loops do not mirror the FWD loops (FWD runs (3, 8) iterations and REV (3, 10)), so its tiles could not be streamed back as a stack

// A tape stored under a branch op the pass does not layer (scf.index_switch) is
// kept too; the tape beside it in the same loop is still tiled, with the kept
// region's store inside the tile's loop.
// RUN: tapeflow-opt -p 'tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/Inputs/switch.mlir 2>&1 | filecheck %s --check-prefix=SWITCH
// SWITCH:      tapeflow-layers: @diffef: 1 FWD/REV layer pairs, 2 layers executed (scratchpad 64 B)
// SWITCH-NEXT:   layer 0/1 %u: 8x1 entries, tile of iterations, runs 1 times
// SWITCH-NEXT:   region #1 %s kept in DRAM, read through the cache: it is stored inside 'scf.index_switch'; only loops, branches (scf.if) and straight-line stores are layered
// SWITCH:      region.alloc {tapeflow.kept = "it is stored inside 'scf.index_switch'
// SWITCH:      layer.layer 0 fwd partner 1 {
// SWITCH:        scf.index_switch
// SWITCH:          region.store %{{.*}}, %s[%{{.*}}] slot 0 id 0
