// An external function has no body for Enzyme to differentiate.
func.func private @opaque(f64) -> f64
func.func @f(%x: f64) -> f64 {
  %y = func.call @opaque(%x) : (f64) -> f64
  func.return %y : f64
}
func.func @grad(%x: f64, %seed: f64) -> f64 {
  %r = enzyme.autodiff @f(%x, %seed) <{activity = [#enzyme.activity<enzyme_active>], ret_activity = [#enzyme.activity<enzyme_activenoneed>]}> : (f64, f64) -> f64
  func.return %r : f64
}
