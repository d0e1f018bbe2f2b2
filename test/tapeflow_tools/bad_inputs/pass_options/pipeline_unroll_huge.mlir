// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-pipeline{spad-bytes=512 unroll=99999999999}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-pipeline', option 'unroll' is 99999999999, out of range
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
