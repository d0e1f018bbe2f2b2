// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-raise-tape,tapeflow-layers{spad-bytes=x}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers', option 'spad-bytes' expects int, got x
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
