// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-bytes=9223372036854775808}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers', option 'spad-bytes' is 9223372036854775808, out of range
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
