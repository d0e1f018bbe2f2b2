// f(x) = x[0]^2 needs no value saved for the reverse sweep: Enzyme's gradient
// has no cache, so tapeflow-pipeline has no tape to lower and says so.
// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-enzyme,tapeflow-pipeline' {file} -o {copy}
// WARNING: tapeflow-pipeline: warning: @diffef has no Enzyme cache buffer
func.func @f(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  %y = arith.mulf %v, %v : f64
  return %y : f64
}

func.func @g(%x: memref<4xf64>, %dx: memref<4xf64>) -> f64 {
  %s = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %s) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
