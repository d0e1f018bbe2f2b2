// TOOL: tapeflow-opt
// ARGS: {file} -o {copy}
// ERROR: {file}:6:3: error: 'arith.addf' uses %b (operand #0) before its definition (defined at {file}:7:3)
// xDSL's parser links forward references; nothing else checks the order.
func.func @f(%x: f64) -> f64 {
  %a = arith.addf %b, %x : f64
  %b = arith.mulf %x, %x : f64
  func.return %a : f64
}
