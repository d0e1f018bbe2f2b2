// TOOL: tapeflow-opt
// ARGS: -p tapeflow-layers {copy} -o {copy}
// ERROR: tapeflow-layers: the module has no gradient function
// A pass that fails (here: run before tapeflow-enzyme) leaves -o untouched.
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
