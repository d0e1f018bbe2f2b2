// TOOL: tapeflow-run
// ARGS: {file} --function g --out {out}
// ERROR: {file}:12:1: error: redefinition of symbol @g, first defined at {file}:8:1
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}

func.func @g(%x: f64) -> f64 {
  func.return %x : f64
}

func.func @g(%x: f64) -> f64 {
  func.return %x : f64
}
