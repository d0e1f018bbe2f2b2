// TOOL: tapeflow-opt
// ARGS: -p tapeflow-enzyme {copy} -o {copy}
// ERROR: {copy}:6:27: error: Expected 'x' in shape delimiter
// The issue's first case: `-o` naming the input emptied it before the parse
// failed. The input must come out of the failed run byte for byte.
func.func @f(%x: memref<4 f64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  func.return %v : f64
}
