// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:10:3: error: 'func.return' uses %z (operand #0) in a block that its definition does not dominate
func.func @f(%c: i1, %x: f64) -> f64 {
  cf.cond_br %c, ^a(%x : f64), ^b
^a(%z: f64):
  func.return %z : f64
^b:
  // %z is ^a's argument.
  func.return %z : f64
}
