// The cost model counts conflict misses from the cache's sets (`cache-ways`,
// `cache-bytes`, `cache-line-bytes`) and where the machine places buffers
// (`buffer-base`, `buffer-alignment`, `buffers-packed`). Batch normalization's
// nest (Ioffe & Szegedy, ICML 2015, Algorithm 1; tapeflow_benchmarks/kernels/
// batchnorm.py), 64 samples of 96 features, walks a column of the row-major batch:
// a row is 768 B, 12 lines, so a column's 64 lines fall two each into 32 of a
// 32 KB 4-way cache's 128 sets, and x's and y's walks fill those sets. gamma[c] and
// beta[c] share them and miss every feature; streamed, each misses in a kernel of
// its own, a DRAM latency each. The per-feature nest is kept (the simulator
// measures it kept at 206,065 cycles, streamed at 212,423).
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=512 tiles-in-flight=2 loop-tiles-in-flight=4 stats=true}' %S/../../../../tapeflow_benchmarks/mlir/batchnorm.paper.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=WAYS4
// WAYS4: nest #1 !region.region<96, [f64, f64]>: kept (cost model: streaming saves at most {{[0-9]+}} cycles, adds {{[0-9]+}}

// One set of 512 ways (a fully associative cache of the same size): no line
// conflicts, gamma[c] and beta[c] stay, and the same nest streams.
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=512 tiles-in-flight=2 loop-tiles-in-flight=4 cache-ways=512 stats=true}' %S/../../../../tapeflow_benchmarks/mlir/batchnorm.paper.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=WAYS512
// WAYS512: nest #1 !region.region<96, [f64, f64]>: streamed (cost model: streaming saves at most {{[0-9]+}} cycles
