// RUN: tapeflow-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @outside_grid(%a: f64) {
  cgra.kernel 0 rows 4 cols 4 ii 1 {
    %m = cgra.op "arith.mulf"(%a, %a) at 4, 0 cycle 0 : (f64, f64) -> f64
    cgra.yield
  }
  func.return
}
// CHECK: invalid.mlir:5:5: error: 'cgra.op' is placed on PE (4, 0), outside the 4x4 grid of its kernel

// -----

func.func @pe_conflict(%a: f64) {
  cgra.kernel 0 rows 4 cols 4 ii 2 {
    %m = cgra.op "arith.mulf"(%a, %a) at 1, 1 cycle 1 : (f64, f64) -> f64
    %n = cgra.op "arith.addf"(%a, %a) at 1, 1 cycle 3 : (f64, f64) -> f64
    cgra.yield
  }
  func.return
}
// CHECK: error: 'cgra.kernel' issues 'cgra.op' and 'cgra.op' on PE (1, 1) in the same cycle modulo ii=2

// -----

func.func @cache_on_spad(%v: f64, %i: index) {
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    cgra.kernel 0 rows 4 cols 4 ii 1 {
      cgra.store %v, %tile[%i] cache at 0, 0 cycle 0 : f64, !layer.spad<4x2>
      cgra.yield
    }
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'cgra.store' goes through the cache but accesses a !layer.spad<4x2>, not a memref

// -----

func.func @spad_slot(%x: memref<8xf64>, %i: index) {
  cgra.kernel 0 rows 4 cols 4 ii 1 {
    %v = cgra.load %x[%i] spad slot 0 at 0, 0 cycle 0 : memref<8xf64> -> f64
    cgra.yield
  }
  func.return
}
// CHECK: error: 'cgra.load' uses the scratchpad but accesses a memref<8xf64>

// -----

func.func @outside_kernel(%a: f64) {
  %m = cgra.op "arith.mulf"(%a, %a) at 0, 0 cycle 0 : (f64, f64) -> f64
  func.return
}
// CHECK: error: 'cgra.op' must be inside a 'cgra.kernel'

// -----

func.func @yield_types(%a: f64) {
  %r = cgra.kernel 0 rows 4 cols 4 ii 1 -> f64 {
    cgra.yield
  }
  func.return
}
// CHECK: error: 'cgra.kernel' yields [] but its results are [f64]

// -----

// A kernel is one grid configuration: it holds no layer (the search for a
// layer's partner does not enter kernels).
func.func @layer_in_kernel() {
  cgra.kernel 0 rows 4 cols 4 ii 1 {
    layer.layer 0 fwd partner 1 {
      %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
      layer.barrier
    }
    cgra.yield
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'cgra.kernel' holds 'layer.layer' 0; a kernel is one configuration of placed dataflow, inside a layer or outside any
