// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:10:5: error: 'arith.addf' uses %s (operand #1) inside the op that defines it (defined at {file}:9:3)
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // The loop's own result read inside it (meant: the iteration argument %acc).
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (f64) {
    %next = arith.addf %acc, %s : f64
    scf.yield %next : f64
  }
  func.return %s : f64
}
