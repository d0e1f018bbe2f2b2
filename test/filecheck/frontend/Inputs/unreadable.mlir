func.func @f(%x: f64) -> f64 {
  // a typo in the op name
  %y = arith.addf %x, %x : f64 : f64
  return %y : f64
}
