// RUN: tapeflow-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
func.func @too_few(%x: f64) -> f64 {
  %r = enzyme.autodiff @f(%x) <{activity = [#enzyme.activity<enzyme_active>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (f64) -> f64
  func.return %r : f64
}
// CHECK: invalid.mlir:7:3: error: 'enzyme.autodiff' expects 2 operands for its activities (primal arguments, shadows of enzyme_dup arguments, seeds of active results) but has 1

// -----

func.func @g(%x: f64, %y: f64) -> f64 {
  func.return %x : f64
}
func.func @arity(%x: f64, %s: f64) -> f64 {
  %r = enzyme.autodiff @g(%x, %s) <{activity = [#enzyme.activity<enzyme_active>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (f64, f64) -> f64
  func.return %r : f64
}
// CHECK: error: 'enzyme.autodiff' gives 1 activities but @g has 2 arguments

// -----

func.func @push_type(%v: f32) {
  %c = enzyme.init : !enzyme.Cache<f64>
  enzyme.push %c, %v : !enzyme.Cache<f64>, f32
  func.return
}
// CHECK: error: 'enzyme.push' value type f32 does not match the element type f64 of !enzyme.Cache<f64>

// -----

func.func @pop_type() {
  %c = enzyme.init : !enzyme.Cache<f64>
  %v = enzyme.pop %c : !enzyme.Cache<f64> -> index
  func.return
}
// CHECK: error: 'enzyme.pop' value type index does not match the element type f64 of !enzyme.Cache<f64>

// -----

func.func @bad_activity(%x: f64) {
  %r = enzyme.autodiff @f(%x) <{activity = [#enzyme.activity<enzyme_sideways>], ret_activity = []}> : (f64) -> ()
  func.return
}
// CHECK: error: Expected `enzyme_active`, `enzyme_dup`

// -----

func.func @cache_store_type(%m: memref<?xf64>, %i: index, %n: index, %v: f32) {
  "enzyme.store"(%v, %m, %i, %n) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>, static_sizes = array<i64: -9223372036854775808>}> : (f32, memref<?xf64>, index, index) -> ()
  func.return
}
// CHECK: error: 'enzyme.store' stores a f32 into a cache of f64 (memref<?xf64>)

// -----

func.func @cache_store_rank(%m: memref<?x?xf64>, %i: index, %n: index, %v: f64) {
  enzyme.store %v, %m[%i] ([%n]) : memref<?x?xf64>
  func.return
}
// CHECK: error: 'enzyme.store' has 1 index for a cache buffer of rank 2 (memref<?x?xf64>)

// -----

func.func @cache_load_extents(%m: memref<?xf64>, %i: index, %n: index) -> f64 {
  %r = enzyme.load %m[%i] ([%n, 4]) : memref<?xf64>
  func.return %r : f64
}
// CHECK: error: 'enzyme.load' gives 2 extents for 1 index: Enzyme writes the logical extent of every cache dimension it indexes

// -----

func.func @cache_load_segments(%m: memref<?xf64>, %i: index, %n: index) -> f64 {
  %r = "enzyme.load"(%m, %i) <{operandSegmentSizes = array<i32: 1, 1, 0>, static_sizes = array<i64: -9223372036854775808>}> : (memref<?xf64>, index) -> f64
  func.return %r : f64
}
// CHECK: error: 'enzyme.load' has 1 dynamic extents but 0 extent values

// -----

func.func @cache_load_result(%m: memref<?xf64>, %i: index, %n: index) -> f32 {
  %r = "enzyme.load"(%m, %i, %n) <{operandSegmentSizes = array<i32: 1, 1, 1>, static_sizes = array<i64: -9223372036854775808>}> : (memref<?xf64>, index, index) -> f32
  func.return %r : f32
}
// CHECK: error: 'enzyme.load' reads a f32 from a cache of f64 (memref<?xf64>)

// -----

func.func @cache_load_negative(%m: memref<?xf64>, %i: index) -> f64 {
  %r = "enzyme.load"(%m, %i) <{operandSegmentSizes = array<i32: 1, 1, 0>, static_sizes = array<i64: -3>}> : (memref<?xf64>, index) -> f64
  func.return %r : f64
}
// CHECK: error: 'enzyme.load' has a negative extent -3

// -----

func.func @ignore_derivatives_type(%x: f64) -> f32 {
  %r = "enzyme.ignore_derivatives"(%x) : (f64) -> f32
  func.return %r : f32
}
// CHECK: error: 'enzyme.ignore_derivatives' must return its operand's type (f64), not f32
