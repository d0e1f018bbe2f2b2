// The function the .case files of this folder bind their --inputs to (not a case).
// @f(x: memref<4xf64>, idx: memref<4xindex>, n: i8, s: f64) returns x[idx[0]] * s.
func.func @f(%x: memref<4xf64>, %idx: memref<4xindex>, %n: i8, %s: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %i = memref.load %idx[%c0] : memref<4xindex>
  %v = memref.load %x[%i] : memref<4xf64>
  %r = arith.mulf %v, %s : f64
  func.return %r : f64
}
