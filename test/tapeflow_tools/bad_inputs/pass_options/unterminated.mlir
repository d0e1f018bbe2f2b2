// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-bytes=' {file} -o {copy}
// ERROR: tapeflow-opt: error: Error parsing pass pipeline specification
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
