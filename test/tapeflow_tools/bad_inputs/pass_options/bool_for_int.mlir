// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-bytes=true}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers', option 'spad-bytes' expects an integer, got true
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
