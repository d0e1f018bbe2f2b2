// A loop of run-time trip count %n whose body writes two regions: the inner
// loop's cached loads (2 per tap, 3 taps) and the activation's argument (1 per
// output). Both mirrors are proven for every n, and the loop is strip-mined with
// both regions in its tiles: per iteration a row for each value of each tap, then
// one for the activation's argument (7 entries, none left empty).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stats=true}' %S/Inputs/run-time-nest.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BOTH
// BOTH:      @diffef: 1 FWD/REV layer pairs
// BOTH-NEXT:   layer 0/1 !region.region<?x3, [f64, f64]>, !region.region<?, [f64]>: 7x1 entries, tile of iterations, runs ceil(trip count / 1) times
// BOTH-NOT:  kept

// Where one iteration does not fit (32 bytes, 4 entries, for 7), the constant inner loop
// is strip-mined within each iteration, as the constant-trip tiler descends; the
// per-output value, alone in the outer loop's body, stays in DRAM, and the report
// says why.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=32 stats=true}' %S/Inputs/run-time-nest.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=INNER
// INNER:      layer 0/1 !region.region<?x3, [f64, f64]>: 2x2 entries, tile of iterations, runs ceil(trip count / 2) times
// INNER-NEXT: region #1 !region.region<?, [f64]> kept in DRAM, read through the cache: its loop also holds region !region.region<?x3, [f64, f64]>, strip-mined in a loop inside it

// Through streams and binding: the two regions share one slab tape.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64},tapeflow-streams,tapeflow-spad-bind' %S/Inputs/run-time-nest.mlir | filecheck %s --check-prefix=BOUND
// BOUND:     stream.alloc slab 4096 : !stream.tape
// BOUND-NOT: stream.alloc
// BOUND:     stream.fwd
// BOUND:     stream.rev
