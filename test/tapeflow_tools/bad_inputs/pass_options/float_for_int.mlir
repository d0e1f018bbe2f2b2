// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-unroll{factor=1.5}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-unroll', option 'factor' expects int, got 1.5
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
