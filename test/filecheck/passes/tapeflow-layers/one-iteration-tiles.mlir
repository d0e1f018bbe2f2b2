// A loop whose iteration holds an inner loop's tape and a per-iteration value, and
// fits a tile only once, is one layer of its body (no tile loop, no bounds):
// logistic regression (8 samples of 4 features) caches 2 values per feature and 2
// per sample, 10 entries in 5 rows of 2 slots; a tile of a 128 B scratchpad (16
// entries) holds one sample.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=128 stream=always stats=true}' %S/../../../../tapeflow_benchmarks/mlir/logreg.small.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=ONE
// ONE:      @diffelogreg: 1 FWD/REV layer pairs, 16 layers executed
// ONE-NEXT:   layer 0/1 !region.region<8x4, [f64, f64]>, !region.region<8, [f64, f64]>: 5x2 entries, tile of one iteration, its body, runs 8 times

// An innermost loop whose iteration fits a tile once is strip-mined: its pipeline
// continues across its tiles (somier's 9 values a point, 128 B).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=128 stream=always stats=true}' %S/../../../../tapeflow_benchmarks/mlir/somier.small.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=INNERMOST
// INNERMOST: layer 0/1 !region.region<2x2x2, [f64, f64, f64, f64, f64, f64, f64, f64, f64]>: 1x9 entries, tile of iterations, runs 8 times

// MTTKRP caches 2 values per inner iteration and 1 per outer one: in one tile they
// share 1 slot, each inner iteration's 2 values taking 2 rows. Where only one
// iteration fits (64 B: 5 of 8 entries), strip-mining would make each tile compute
// its bounds and rows: the iteration's body is the layer instead, the inner loop
// and the per-iteration value together (one layer where a tile of the inner loop
// and a piece made two), its REV partner holding the mirrored body.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/../../../../tapeflow_benchmarks/mlir/mttkrp.small.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BODY
// BODY:      @diffemttkrp: 1 FWD/REV layer pairs, 120 layers executed
// BODY-NEXT: layer 0/1 !region.region<3x4x5, [f64]>, !region.region<3x4x5x2, [f64, f64]>: 5x1 entries, tile of one iteration, its body, runs 60 times
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always}' %S/../../../../tapeflow_benchmarks/mlir/mttkrp.small.mlir | filecheck %s --check-prefix=IR
// IR:          func.func private @diffemttkrp
// IR:          scf.for %[[K:.*]] = %c0 to %c5 step %c1 {
// IR-NOT:      scf.for
// IR:            layer.layer 0 fwd partner 1 {
// IR-NEXT:         layer.salloc base 0 capacity 64 : !layer.spad<5x1>
// IR:              region.store {{.*}}[%{{.*}}, %{{.*}}, %[[K]]] slot 0 id 0 : f64, !region.region<3x4x5, [f64]>
// IR-NEXT:         scf.for %[[L:.*]] = %c0 to %c2 step %c1 {
// IR:                region.store {{.*}}[%{{.*}}, %{{.*}}, %[[K]], %[[L]]] slot 0
// IR:                region.store {{.*}}[%{{.*}}, %{{.*}}, %[[K]], %[[L]]] slot 1
// IR:              layer.barrier
// IR-NEXT:       }
// IR-NEXT:     }
// IR:          scf.for {{.*}} = %c0 to %c5 step %c1 {
// IR-NOT:      scf.for
// IR:            layer.layer 1 rev partner 0 {
// IR-NEXT:         layer.salloc base 0 capacity 64 : !layer.spad<5x1>
// IR:              region.load {{.*}} slot 0 from 0 : !region.region<3x4x5, [f64]> -> f64
// IR:              scf.for
// IR:                region.load {{.*}} slot 0 from 0 : !region.region<3x4x5x2, [f64, f64]>
// IR-NEXT:           region.load {{.*}} slot 1 from 1 : !region.region<3x4x5x2, [f64, f64]>
// IR:              layer.barrier
// IR-NEXT:       }
// IR-NEXT:     }

// The streams of such a layer move its whole tile: the iteration's 5 rows.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams' %S/../../../../tapeflow_benchmarks/mlir/mttkrp.small.mlir | filecheck %s --check-prefix=STREAMS
// STREAMS:      layer.layer 0 fwd partner 1 {
// STREAMS:      %[[FWD:.*]] = arith.constant 5 : index
// STREAMS-NEXT: stream.fwd %{{.*}} rows %[[FWD]] to %{{.*}} id 0 : !layer.spad<5x1>
// STREAMS-NEXT: layer.barrier
// STREAMS:      layer.layer 1 rev partner 0
// STREAMS:      %[[REV:.*]] = arith.constant 5 : index
// STREAMS-NEXT: stream.rev %{{.*}} rows %[[REV]] to %{{.*}} of 0 : !layer.spad<5x1>

// The same for a loop of run-time trip count: an embedding bag's index loop (its
// bounds loaded from the offsets) caches 2 values an index and 1 a feature of its
// 3-feature inner loop, 5 entries an index; a 64 B tile holds one: the index
// loop's body is the layer, with no run-time tile count or bounds.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always stats=true}' %S/../../../../tapeflow_benchmarks/mlir/embbag.small.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=RUNTIME
// RUNTIME: layer 0/1 !region.region<5x?, [index, f64]>, !region.region<5x?x3, [f64]>: 5x1 entries, tile of one iteration, its body, runs once per iteration of its loops (trip counts known at run time)
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always}' %S/../../../../tapeflow_benchmarks/mlir/embbag.small.mlir | filecheck %s --check-prefix=RUNTIME-IR
// RUNTIME-IR:      func.func private @diffeembbag
// RUNTIME-IR:      scf.for %{{.*}} = %{{[0-9]+}} to %{{[0-9]+}} step %c1 {
// RUNTIME-IR-NEXT:   layer.layer 0 fwd partner 1 {
// RUNTIME-IR-NEXT:     layer.salloc base 0 capacity 64 : !layer.spad<5x1>
