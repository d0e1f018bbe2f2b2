// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layer' {file} -o {copy}
// ERROR: tapeflow-opt: error: Unrecognized passes: ['tapeflow-layer']
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
