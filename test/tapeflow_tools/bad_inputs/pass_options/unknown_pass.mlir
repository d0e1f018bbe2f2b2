// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layer' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: unknown pass 'tapeflow-layer'; did you mean 'tapeflow-layers'?
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
