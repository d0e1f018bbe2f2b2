// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-to-cgra{rows=9223372036854775807}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-to-cgra', option 'rows' is 9223372036854775807, out of range
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
