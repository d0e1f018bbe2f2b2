// RUN: tapeflow-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @over_capacity(%v: f64, %i: index) {
  %a = region.alloc : !region.region<8, [f64]>
  %b = region.alloc : !region.region<8, [f64, f64]>
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
    region.store %v, %a[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
    region.store %v, %b[%i] slot 0 id 1 : f64, !region.region<8, [f64, f64]>
    region.store %v, %b[%i] slot 1 id 2 : f64, !region.region<8, [f64, f64]>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x2>
    layer.barrier
  }
  func.return
}
// CHECK: invalid.mlir:6:3: error: 'layer.layer' 0 stores 3 values outside loops but its tile !layer.spad<1x2> has 2 entries

// -----

func.func @spad_overflow() {
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 60 capacity 512 : !layer.spad<4x2>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'layer.salloc' tile !layer.spad<4x2> at entry 60 ends at byte 544, beyond the configured scratchpad of 512 bytes

// -----

func.func @same_phase() {
  layer.layer 0 rev partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'layer.layer' 0 and its partner 1 are both rev layers; partners are one FWD and one REV

// -----

func.func @missing_partner() {
  layer.layer 0 fwd partner 9 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'layer.layer' 0 names partner 9, but no layer has that id

// -----

func.func @no_salloc() {
  layer.layer 0 fwd partner 1 {
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'layer.layer' 0 must start with 'layer.salloc'

// -----

func.func @results(%v: f64) -> f64 {
  %r = layer.layer 0 fwd partner 1 -> f64 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  func.return %r : f64
}
// CHECK: error: 'layer.layer' 0 yields [] but its results are [f64]

// -----

func.func @salloc_outside() {
  %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
  func.return
}
// CHECK: error: 'layer.salloc' expects parent op 'layer.layer'

// -----

func.func @nested() {
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.layer 2 fwd partner 3 {
      %inner = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
      layer.barrier
    }
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  layer.layer 3 rev partner 2 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<1x1>
    layer.barrier
  }
  func.return
}
// CHECK: error: 'layer.layer' 0 holds layer 2; layers do not nest (each is one step of the flat FWD or REV layer sequence)
