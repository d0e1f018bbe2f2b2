// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:11:3: error: 'enzyme.autodiff' marks result 0 of @f (i64) enzyme_active, but only a floating-point result can be differentiated
func.func @f(%x: memref<4xf64>) -> i64 {
  %c = arith.constant 3 : i64
  func.return %c : i64
}
func.func @g(%x: memref<4xf64>, %dx: memref<4xf64>) -> i64 {
  %seed = arith.constant 1 : i64
  // An integer result has no adjoint to seed.
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, i64) -> i64
  func.return %r : i64
}
