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
