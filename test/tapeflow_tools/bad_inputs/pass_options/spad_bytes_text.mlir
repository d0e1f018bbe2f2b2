// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-bytes=abc}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers', option 'spad-bytes' expects int, got abc
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
