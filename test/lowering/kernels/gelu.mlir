// GELU as PyTorch defines it (torch.nn.GELU with approximate='none', the
// documented formula 0.5 * x * (1 + erf(x / sqrt(2)))), applied after a bias as
// in a transformer's feed-forward block (`gelu(x + b)`), with math.erf (which
// Enzyme-MLIR has no adjoint for; tapeflow-enzyme gives it its derivative
// 2 / sqrt(pi) * exp(-u^2)). Written anew.
func.func @f(%x: memref<2x4xf64>, %b: memref<4xf64>, %y: memref<2x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %rsqrt2 = arith.constant 0.70710678118654757 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %j] : memref<2x4xf64>
      %bj = memref.load %b[%j] : memref<4xf64>
      %u = arith.addf %v, %bj : f64
      %s = arith.mulf %u, %rsqrt2 : f64
      %e = math.erf %s : f64
      %p = arith.addf %one, %e : f64
      %h = arith.mulf %half, %u : f64
      %g = arith.mulf %h, %p : f64
      memref.store %g, %y[%i, %j] : memref<2x4xf64>
    }
  }
  return
}
func.func @f_grad(%x: memref<2x4xf64>, %dx: memref<2x4xf64>, %b: memref<4xf64>, %db: memref<4xf64>, %y: memref<2x4xf64>, %dy: memref<2x4xf64>) {
  enzyme.autodiff @f(%x, %dx, %b, %db, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<2x4xf64>, memref<2x4xf64>, memref<4xf64>, memref<4xf64>, memref<2x4xf64>, memref<2x4xf64>) -> ()
  return
}
