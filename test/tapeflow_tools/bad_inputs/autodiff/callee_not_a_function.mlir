// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:13:3: error: 'enzyme.autodiff' differentiates @table, which is a 'memref.global', not a func.func
func.func @f(%x: memref<4xf64>, %s: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  %r = arith.mulf %v, %s : f64
  func.return %r : f64
}
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xf64>, initial_value = dense<0.0> : tensor<4xf64>}> : () -> ()
func.func @g(%x: memref<4xf64>, %dx: memref<4xf64>, %s: f64) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @table(%x, %dx, %s, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64, f64) -> f64
  func.return %r : f64
}
