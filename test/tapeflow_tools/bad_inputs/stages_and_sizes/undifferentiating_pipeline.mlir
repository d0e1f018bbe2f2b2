// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-enzyme{pipeline="canonicalize"}' {file} -o {copy}
// ERROR: tapeflow-enzyme: Enzyme's pipeline 'canonicalize' left enzyme.autodiff undifferentiated
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
