// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:12:15: error: use of undefined value %v
func.func @f(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // %v is a value of the loop body, not of the function.
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
  }
  func.return %v : f64
}
