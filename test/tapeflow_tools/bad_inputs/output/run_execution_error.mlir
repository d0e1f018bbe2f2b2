// TOOL: tapeflow-run
// ARGS: {file} --function f --out {out}
// ERROR: {file}:7:3:
// A run that fails half way leaves an existing --out as it was.
func.func @f(%x: memref<4xf64>) -> f64 {
  %c9 = arith.constant 9 : index
  %v = memref.load %x[%c9] : memref<4xf64>
  func.return %v : f64
}
