// RUN: tapeflow-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @slot_range(%v: f64, %i: index) {
  %r = region.alloc : !region.region<8, [f64, f64]>
  region.store %v, %r[%i] slot 2 id 0 : f64, !region.region<8, [f64, f64]>
  func.return
}
// CHECK: invalid.mlir:5:3: error: 'region.store' slot 2 is out of range for !region.region<8, [f64, f64]>, whose struct has 2 slots

// -----

func.func @slot_type(%i: index) {
  %r = region.alloc : !region.region<8, [f64, index]>
  region.store %i, %r[%i] slot 0 id 0 : index, !region.region<8, [f64, index]>
  func.return
}
// CHECK: error: 'region.store' stores a index into slot 0 of type f64

// -----

func.func @never_stored(%i: index) {
  %r = region.alloc : !region.region<8, [f64]>
  %v = region.load %r[%i] slot 0 from 7 : !region.region<8, [f64]> -> f64
  func.return
}
// CHECK: error: 'region.load' reads the value of store 7, but no 'region.store' with that id writes this container

// -----

func.func @load_slot_range(%v: f64, %i: index) {
  %r = region.alloc : !region.region<8, [f64]>
  region.store %v, %r[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
  %w = region.load %r[%i] slot -1 from 0 : !region.region<8, [f64]> -> f64
  func.return
}
// CHECK: error: 'region.load' slot -1 is out of range for !region.region<8, [f64]>, whose struct has 1 slots

// -----

func.func @no_slots() {
  %r = region.alloc : !region.region<8, []>
  func.return
}
// CHECK: invalid.mlir:41:3: error: a region struct needs at least one slot

// -----

func.func @dynamic_region_sizes(%n: index) {
  %r = region.alloc(%n) : !region.region<?x?, [f64]>
  func.return
}
// CHECK: error: 'region.alloc' of !region.region<?x?, [f64]> needs 2 size operand(s), one per '?' extent, but has 1

// -----

func.func @empty_region() {
  %r = region.alloc : !region.region<0, [f64]>
  func.return
}
// CHECK: error: region dimensions must be positive (or '?', known at run time), got !region.region<0, [f64]>
