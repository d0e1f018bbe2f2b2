func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
// -----
func.func @f(%x: f64) -> f64 {
  // naïve
  func.return %x : f64
}
