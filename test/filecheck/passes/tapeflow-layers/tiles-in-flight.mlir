// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=64 stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=ONE
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=64 tiles-in-flight=2 stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=TWO
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=64 tiles-in-flight=2}' %S/../../../../examples/fig9-conv.mlir | filecheck %s --check-prefix=IR
// RUN: not tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=64 tiles-in-flight=0}' %S/../../../../examples/fig9-conv.mlir 2>&1 | filecheck %s --check-prefix=BAD
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=64 loop-tiles-in-flight=2 stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=ONE
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=128 loop-tiles-in-flight=2 stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BURST
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=256 loop-tiles-in-flight=4 stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BURST
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=256 loop-tiles-in-flight=8 stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BURST
// RUN: not tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{stream=always spad-bytes=64 loop-tiles-in-flight=-1}' %S/../../../../examples/fig9-conv.mlir 2>&1 | filecheck %s --check-prefix=BADLOOP

// The Figure 9 convolution stores 4 tape values an iteration. On a 64 B
// scratchpad (8 entries) a tile may take all of it: 2 iterations, 8 tiles. With
// two tiles in flight a tile takes at most half (4 entries): 1 iteration, 16
// tiles, so that the stream of the next can fill the other half while one is in
// use. The allocation still names the whole scratchpad's capacity. (`stream=always`:
// the sizing of tiles, whatever the cost model would choose for a tape this small;
// stream-choice.mlir tests the choice.)
//
// The layer is a strip-mined loop, whose tiles `loop-tiles-in-flight` sizes, but
// no smaller than a DRAM burst (64 B, 8 entries) where a straight-line layer's
// share (here the whole scratchpad) holds one: on 64 B, `loop-tiles-in-flight=2`
// alone keeps the 8-entry tiles. On 128 B two loop tiles in flight give 8-entry
// tiles: 2 iterations, 8 tiles; on 256 B four do too, and eight (4 entries, half
// a burst) are held to a burst.

// ONE: layer 0/1 !region.region<16, [f64, f64, f64, f64]>: 2x4 entries, tile of iterations, runs 8 times
// BURST: layer 0/1 !region.region<16, [f64, f64, f64, f64]>: 2x4 entries, tile of iterations, runs 8 times
// TWO: layer 0/1 !region.region<16, [f64, f64, f64, f64]>: 1x4 entries, tile of iterations, runs 16 times
// IR: layer.salloc base 0 capacity 64 : !layer.spad<1x4>
// BAD: tapeflow-layers: tiles-in-flight must be at least 1, got 0
// BADLOOP: tapeflow-layers: loop-tiles-in-flight must be at least 1 (or 0: as tiles-in-flight), got -1
