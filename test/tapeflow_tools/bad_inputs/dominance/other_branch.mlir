// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:12:3: error: 'func.return' uses %y (operand #0) in a block that its definition does not dominate (defined at {file}:8:3)
func.func @f(%c: i1, %x: f64) -> f64 {
  cf.cond_br %c, ^then, ^else
^then:
  // %y exists only when control passed through ^then.
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
^else:
  // ...so ^else cannot read it.
  func.return %y : f64
}
