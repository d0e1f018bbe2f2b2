// An inner loop over a band, from max(1, i - 1) to min(5, i + 2): bounds that
// clamp the outer index, which REV recomputes at its mirrored iteration. A `max`
// or `min` of affine forms is an atom of the forms (the same op of the same
// operands in FWD and REV), so the mirror is proven for the band and the loop is
// strip-mined with a run-time number of tiles (streamed whatever the cost model
// would choose: this small band fits the cache, where it would be kept).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true stream=always}' %S/Inputs/band.mlir 2>&1 >/dev/null | filecheck %s
// CHECK:      @diffef: 1 FWD/REV layer pairs
// CHECK-NEXT:   layer 0/1 !region.region<4x?, [f64, f64]>: 4x2 entries, tile of iterations, runs ceil(trip count / 4) times per run of the loops around it (known at run time)
// CHECK-NOT:  kept

// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always}' %S/Inputs/band.mlir | filecheck %s --check-prefix=TILES
// TILES-LABEL: func.func private @diffef
// The tile loop runs over the trip count, 4 iterations a step; REV's first tile
// holds (trip - 1) rem 4 + 1 of them, computed once before its tile loop.
// TILES:         arith.maxsi
// TILES:         arith.minsi
// TILES:         arith.subi
// TILES:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// TILES-NEXT:      layer.layer 0 fwd partner 1 -> index, index {
// TILES-NEXT:        layer.salloc base 0 capacity 64 : !layer.spad<4x2>
// TILES:         arith.remsi
// TILES:         layer.layer 1 rev partner 0 -> index, index, index {
// TILES-NEXT:      layer.salloc base 0 capacity 64 : !layer.spad<4x2>

// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 stream=always}' %S/Inputs/band.mlir | filecheck %s --check-prefix=PIPE
// PIPE-LABEL: func.func private @diffef
// PIPE-NOT:   region.
// PIPE:       stream.fwd
// PIPE:       stream.rev

// Under the cost model (the default) the band, which fits the cache, is kept, and
// the region is reported once, with the cost model's reason.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/band.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO
// AUTO:      @diffef: 0 FWD/REV layer pairs
// AUTO-NOT:  could not be strip-mined
// AUTO:      kept in DRAM, read through the cache: cost model: streaming would add
// AUTO-NOT:  kept in DRAM
// AUTO:      nest #0 {{.*}}: kept (cost model
