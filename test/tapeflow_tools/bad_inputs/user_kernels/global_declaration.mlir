// TOOL: tapeflow-sim
// ARGS: {file} --function f_grad --variant enzyme --preset Enzyme32k --json {json}
// ERROR: {file}:5:15: error: memref.global @table has no initial value (an external declaration): give one (= dense<...>) or '= uninitialized'
// A table declared but defined nowhere (MLIR's external global): nothing to simulate.
memref.global "private" constant @table : memref<4xf64>
func.func @f(%x: f64) -> f64 {
  return %x : f64
}
