// A loop of run-time trip count %n whose body writes two regions: the inner
// loop's cached loads (2 per tap, 3 taps) and the activation's argument (1 per
// output). Both mirrors are proven for every n, and a tile holds one iteration
// with both regions: per iteration a row for each value of each tap, then one for
// the activation's argument (7 entries, none left empty). One iteration a tile,
// the iteration's body is the layer (no run-time tile count or bounds).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/run-time-nest.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BOTH
// BOTH:      @diffef: 1 FWD/REV layer pairs
// BOTH-NEXT:   layer 0/1 !region.region<?x3, [f64, f64]>, !region.region<?, [f64]>: 7x1 entries, tile of one iteration, its body, runs once per iteration of its loops (trip counts known at run time)
// BOTH-NOT:  kept

// Where one iteration does not fit (32 bytes, 4 entries, for 7), the constant inner loop
// is strip-mined within each iteration, as the constant-trip tiler descends; the
// per-output value, alone in the outer loop's body, is a piece of each iteration
// (its REV loop is proven to mirror the FWD loop for every n, so the pieces'
// one-row tiles form a stack), its REV partner at the head of the REV body.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=32 stats=true}' %S/Inputs/run-time-nest.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=INNER
// INNER:      layer 0/1 !region.region<?x3, [f64, f64]>: 2x2 entries, tile of iterations, runs ceil(trip count / 2) times
// INNER-NEXT: layer 2/3 !region.region<?, [f64]>: 1x1 entries, piece of an iteration, runs once per iteration of its loops (trip counts known at run time)
// INNER-NOT:  kept
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=32}' %S/Inputs/run-time-nest.mlir | filecheck %s --check-prefix=PIECE
// PIECE-LABEL: func.func private @diffef
// PIECE:         scf.for
// PIECE:           layer.layer 0 fwd partner 1
// PIECE:           layer.layer 2 fwd partner 3 {
// PIECE-NEXT:        layer.salloc base 0 capacity 32 : !layer.spad<1x1>
// PIECE-NEXT:        region.store
// PIECE-NEXT:        layer.barrier
// PIECE:         scf.for
// PIECE:           layer.layer 3 rev partner 2 -> f64 {
// PIECE-NEXT:        layer.salloc base 0 capacity 32 : !layer.spad<1x1>
// PIECE-NEXT:        region.load
// PIECE-NEXT:        layer.barrier
// PIECE:           layer.layer 1 rev partner 0

// Through streams and binding: the two regions share one slab tape.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64},tapeflow-streams,tapeflow-spad-bind' %S/Inputs/run-time-nest.mlir | filecheck %s --check-prefix=BOUND
// BOUND:     stream.alloc slab 4096 : !stream.tape
// BOUND-NOT: stream.alloc
// BOUND:     stream.fwd
// BOUND:     stream.rev
