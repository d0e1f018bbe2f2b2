// TOOL: tapeflow-opt
// ARGS: {file} -o {copy}
// ERROR: {file}:9:1: error: redefinition of symbol @f, first defined at {file}:5:1
// Two functions of one name: which one a call means is anyone's guess.
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}

func.func @f(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
