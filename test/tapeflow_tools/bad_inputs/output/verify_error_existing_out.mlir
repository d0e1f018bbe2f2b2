// TOOL: tapeflow-opt
// ARGS: {file} -o {existing}
// ERROR: {file}:6:3: error: 'arith.addf' uses %b (operand #0) before its definition
// A failed run must not empty (or touch) an unrelated existing output.
func.func @f(%x: f64) -> f64 {
  %a = arith.addf %b, %x : f64
  %b = arith.mulf %x, %x : f64
  func.return %a : f64
}
