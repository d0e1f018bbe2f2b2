func.func @f(%x: f64) -> f64 {
  // café au lait
  func.return %x : f64
}
