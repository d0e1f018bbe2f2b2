// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-raise-tape{stats=3}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-raise-tape', option 'stats' expects bool, got 3
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
