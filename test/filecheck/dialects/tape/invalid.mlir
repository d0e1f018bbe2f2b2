// RUN: tapeflow-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @never_stored(%i: index) {
  %t = tape.alloc : !tape.tape<8xf64>
  %v = tape.load %t[%i] from 3 : !tape.tape<8xf64> -> f64
  func.return
}
// CHECK: invalid.mlir:5:3: error: 'tape.load' reads the value of store 3, but no 'tape.store' with that id writes this container (a value loaded in REV must be stored in FWD)

// -----

func.func @rank(%v: f64, %i: index) {
  %t = tape.alloc : !tape.tape<8x4xf64>
  tape.store %v, %t[%i] id 0 : f64, !tape.tape<8x4xf64>
  func.return
}
// CHECK: error: 'tape.store' has 1 indices for a container of rank 2

// -----

func.func @element(%v: f32, %i: index) {
  %t = tape.alloc : !tape.tape<8xf64>
  tape.store %v, %t[%i] id 0 : f32, !tape.tape<8xf64>
  func.return
}
// CHECK: error: 'tape.store' stores a f32 into !tape.tape<8xf64>

// -----

func.func @duplicate_id(%v: f64, %i: index) {
  %t = tape.alloc : !tape.tape<8xf64>
  tape.store %v, %t[%i] id 0 : f64, !tape.tape<8xf64>
  tape.store %v, %t[%i] id 0 : f64, !tape.tape<8xf64>
  func.return
}
// CHECK: error: 'tape.alloc' result is written by two 'tape.store' ops with id 0; store ids must be unique per container

// -----

func.func @empty_dim() {
  %t = tape.alloc : !tape.tape<0xf64>
  func.return
}
// CHECK: invalid.mlir:41:3: error: tape dimensions must be positive (or '?', known at run time), got !tape.tape<0xf64>

// -----

func.func @dynamic_without_size() {
  %t = tape.alloc : !tape.tape<?x4xf64>
  func.return
}
// CHECK: error: 'tape.alloc' of !tape.tape<?x4xf64> needs 1 size operand(s), one per '?' extent, but has 0

// -----

func.func @size_for_static(%n: index) {
  %t = tape.alloc(%n) : !tape.tape<8x4xf64>
  func.return
}
// CHECK: error: 'tape.alloc' of !tape.tape<8x4xf64> needs 0 size operand(s), one per '?' extent, but has 1

// -----

// A tape holds values: a chain of Enzyme's per-iteration cache buffers is raised
// to one value tape (tapeflow-raise-tape), never to a tape of buffer handles.
func.func @handles(%n: index) {
  %t = tape.alloc(%n) : !tape.tape<4x?xmemref<?xf64>>
  func.return
}
// CHECK: error: a tape cannot hold memref<?xf64>: memref<?xf64> is not a scalar integer, index or float type

// -----

func.func @wide(%n: index) {
  %t = tape.alloc : !tape.tape<4xf128>
  func.return
}
// CHECK: error: a tape cannot hold f128: f128 is 128 bits wide, more than one 8-byte tape word
