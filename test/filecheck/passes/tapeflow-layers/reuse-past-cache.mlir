// A reused element hits only where the cache holds its line at its next use: the
// cost model counts a reused access's misses where one iteration of the loop it is
// reused across touches the cache's lines (its reuse distance).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=512 tiles-in-flight=2 loop-tiles-in-flight=4 stats=true}' %S/Inputs/column-triangle.mlir 2>%t.large >/dev/null
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=512 tiles-in-flight=2 loop-tiles-in-flight=4 cache-bytes=2048 stats=true}' %S/Inputs/column-triangle.mlir 2>%t.small >/dev/null
// RUN: cat %t.large %t.small | filecheck %s

// data[k][i] is reused across j; one iteration of j walks two columns of 32 rows
// (a line a row each, 64 lines: all of data's 4 KB) and stores a line of cov: 65
// lines. The 32 KB cache (512 lines) holds them: the loops' primal accesses hit
// (the arrays fit), their fadd recurrence hides the tape's misses, and streaming
// saves no more than the pipeline fills of its chained tiles (675 cycles), yet
// more than its tiles add, their bounds carried from tile to tile: streamed.
// CHECK: nest #0 !region.region<16x?x32, [f64, f64]>: streamed (cost model: streaming saves at most 675 cycles, adds [[ADDED:[0-9]+]])

// A 2 KB cache (32 lines) does not: data[k][i] and data[k][j] miss a line an
// iteration (a stride of 128 B) in each of the 136 runs of k, 64 misses in 8
// groups (800 cycles, far above the fadd's 5 cycles an iteration); the tape's 2
// stores an iteration add 8 lines (a ninth group) and 28 cycles of port hits: 128
// cycles a run in FWD, and likewise in REV (d_data's loads and stores, 16 groups
// against 17; the 69,632 B tape does not fit, so its loads miss): 2 * 136 * 128 =
// 34816 more saved (test/lowering/test_stream_cost.py checks the number on
// PolyBench's covariance), and the same tiles added: streamed.
// CHECK: nest #0 !region.region<16x?x32, [f64, f64]>: streamed (cost model: streaming saves at most 35491 cycles, adds [[ADDED]])
