// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{buffer-base=-64}' {file} -o {copy}
// ERROR: option buffer-base must be at least 0, got -64
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
