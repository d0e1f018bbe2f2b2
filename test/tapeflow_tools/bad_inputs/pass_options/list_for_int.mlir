// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-bytes=1,2}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers', option 'spad-bytes' expects int, got 1,2
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
