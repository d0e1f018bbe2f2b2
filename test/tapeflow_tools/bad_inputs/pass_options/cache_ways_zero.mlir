// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{cache-ways=0}' {file} -o {copy}
// ERROR: option cache-ways must be at least 1, got 0
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
