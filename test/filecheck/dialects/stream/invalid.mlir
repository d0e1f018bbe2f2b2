// RUN: tapeflow-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @tile_too_large() {
  %tape = stream.alloc bytes 4096 : !stream.tape
  %c9 = arith.constant 9 : index
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.fwd %tile rows %c9 to %tape id 0 : !layer.spad<4x3>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  func.return
}
// CHECK: invalid.mlir:8:5: error: 'stream.fwd' moves 9 rows but its scratchpad tile !layer.spad<4x3> has 4 (96 bytes): a stream tile cannot be larger than its scratchpad tile

// -----

func.func @slot_beyond(%v: f64, %row: index) {
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.store %v, %tile[%row] slot 3 id 0 : f64, !layer.spad<4x3>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'stream.store' slot 3 is beyond the 3 slots of scratchpad tile !layer.spad<4x3>

// -----

func.func @row_beyond() {
  %c4 = arith.constant 4 : index
  layer.layer 0 rev partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    %w = stream.load %tile[%c4] slot 0 from 0 : !layer.spad<4x3> -> f64
    layer.barrier
  }
  layer.layer 1 fwd partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'stream.load' row 4 is beyond the 4 rows of scratchpad tile !layer.spad<4x3>

// -----

func.func @rev_without_fwd() {
  %tape = stream.alloc bytes 4096 : !stream.tape
  %c4 = arith.constant 4 : index
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.rev %tape rows %c4 to %tile of 7 : !layer.spad<4x3>
    layer.barrier
  }
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'stream.rev' reverses FWD-stream 7, which does not write this tape

// -----

func.func @rev_other_tile() {
  %tape = stream.alloc bytes 4096 : !stream.tape
  %c2 = arith.constant 2 : index
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.fwd %tile rows %c2 to %tape id 0 : !layer.spad<4x3>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<2x3>
    stream.rev %tape rows %c2 to %tile of 0 : !layer.spad<2x3>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'stream.rev' preloads a !layer.spad<2x3> tile but FWD-stream 0 wrote a !layer.spad<4x3> tile

// -----

// Scratchpad accesses and streams live in layers of their phase, on their own tile.
func.func @store_in_rev_layer(%v: f64, %row: index) {
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    stream.store %v, %tile[%row] slot 0 id 0 : f64, !layer.spad<4x3>
    layer.barrier
  }
  func.return
}
// CHECK: invalid.mlir:99:5: error: 'stream.store' belongs in a fwd layer, but layer 1 is rev

// -----

func.func @load_outside_layers(%row: index) -> f64 {
  %x = layer.layer 1 rev partner 0 -> !layer.spad<4x3> {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier %tile : !layer.spad<4x3>
  }
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  %v = stream.load %x[%row] slot 0 from 0 : !layer.spad<4x3> -> f64
  func.return %v : f64
}
// CHECK: invalid.mlir:117:3: error: 'stream.load' must be inside a rev layer

// -----

func.func @another_layers_tile(%row: index) -> f64 {
  %x = layer.layer 1 rev partner 0 -> !layer.spad<4x3> {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier %tile : !layer.spad<4x3>
  }
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  %v = layer.layer 3 rev partner 2 -> f64 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    %w = stream.load %x[%row] slot 0 from 0 : !layer.spad<4x3> -> f64
    layer.barrier %w : f64
  }
  layer.layer 2 fwd partner 3 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x3>
    layer.barrier
  }
  func.return %v : f64
}
// CHECK: invalid.mlir:135:5: error: 'stream.load' uses a scratchpad tile that layer 3 did not allocate; a layer reaches only the tile of its own layer.salloc

// -----

func.func @both_sizes() {
  %tape = stream.alloc bytes 64 slab 64 : !stream.tape
  func.return
}
// CHECK: error: 'stream.alloc' takes either 'bytes' (a tape of known size) or 'slab' (a tape that grows by slabs of that size), exactly one

// -----

func.func @no_size() {
  %tape = stream.alloc : !stream.tape
  func.return
}
// CHECK: error: 'stream.alloc' takes either 'bytes' (a tape of known size) or 'slab' (a tape that grows by slabs of that size), exactly one

// -----

func.func @odd_slab() {
  %tape = stream.alloc slab 12 : !stream.tape
  func.return
}
// CHECK: error: 'stream.alloc' slab size must be a positive multiple of 8 bytes (one scratchpad entry), got 12
