// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:12:3: error: 'enzyme.autodiff' passes a memref<8xf64> as the shadow of argument 0 of @f, which must be a memref<4xf64>
func.func @f(%x: memref<4xf64>, %s: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  %r = arith.mulf %v, %s : f64
  func.return %r : f64
}
func.func @g(%x: memref<4xf64>, %dx: memref<8xf64>, %s: f64) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %s, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<8xf64>, f64, f64) -> f64
  func.return %r : f64
}
