// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:11:3: error: 'enzyme.autodiff' marks argument 0 of @f (memref<4xi64>) enzyme_dup, but a buffer of integers has no derivative
func.func @f(%x: memref<4xi64>, %s: f64) -> f64 {
  func.return %s : f64
}
func.func @g(%x: memref<4xi64>, %dx: memref<4xi64>, %s: f64) -> (f64, f64) {
  %seed = arith.constant 1.0 : f64
  // Integer indices duplicated: their "shadow" would never receive anything.
  // (the derivative of %s is still returned)
  %r:2 = enzyme.autodiff @f(%x, %dx, %s, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_active>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xi64>, memref<4xi64>, f64, f64) -> (f64, f64)
  func.return %r#0, %r#1 : f64, f64
}
