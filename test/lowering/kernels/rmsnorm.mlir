// RMSNorm as LLaMA computes it (facebookresearch/llama, llama/model.py,
// `RMSNorm._norm` and `forward`: `x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True)
// + eps) * weight`), over the rows of a 3 x 4 activation, with math.rsqrt (which
// Enzyme-MLIR has no adjoint for; tapeflow-enzyme hands it 1 / sqrt). Written anew.
func.func @f(%x: memref<3x4xf64>, %w: memref<4xf64>, %y: memref<3x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 4.0 : f64
  %eps = arith.constant 1.0e-6 : f64
  scf.for %i = %c0 to %c3 step %c1 {
    %ss = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %x[%i, %j] : memref<3x4xf64>
      %v2 = arith.mulf %v, %v : f64
      %acc2 = arith.addf %acc, %v2 : f64
      scf.yield %acc2 : f64
    }
    %mean = arith.divf %ss, %n : f64
    %shifted = arith.addf %mean, %eps : f64
    %scale = math.rsqrt %shifted : f64
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %j] : memref<3x4xf64>
      %g = memref.load %w[%j] : memref<4xf64>
      %normed = arith.mulf %v, %scale : f64
      %out = arith.mulf %normed, %g : f64
      memref.store %out, %y[%i, %j] : memref<3x4xf64>
    }
  }
  return
}
func.func @f_grad(%x: memref<3x4xf64>, %dx: memref<3x4xf64>, %w: memref<4xf64>, %dw: memref<4xf64>, %y: memref<3x4xf64>, %dy: memref<3x4xf64>) {
  enzyme.autodiff @f(%x, %dx, %w, %dw, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<3x4xf64>, memref<3x4xf64>, memref<4xf64>, memref<4xf64>, memref<3x4xf64>, memref<3x4xf64>) -> ()
  return
}
