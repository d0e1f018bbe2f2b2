// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:11:3: error: 'enzyme.autodiff' marks argument 1 of @f (index) enzyme_active, but only a floating-point scalar has a derivative
func.func @f(%x: memref<4xf64>, %n: index) -> f64 {
  %v = memref.load %x[%n] : memref<4xf64>
  func.return %v : f64
}
func.func @g(%x: memref<4xf64>, %dx: memref<4xf64>, %n: index) -> (f64, index) {
  %seed = arith.constant 1.0 : f64
  // Enzyme accepts this and returns a constant 0 for the index.
  %r:2 = enzyme.autodiff @f(%x, %dx, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_active>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, index, f64) -> (f64, index)
  func.return %r#0, %r#1 : f64, index
}
