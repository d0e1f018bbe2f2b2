// Normalizing rows with a dot-product helper that reads memory and returns a
// value, the way BLAS-style C code calls `ddot` (reference BLAS ddot.f; MachSuite's
// kernels call such helpers): `n = dot(x_i, x_i, len); y_i = x_i * rsqrt(n + eps)`.
// The call touches memory (Enzyme-MLIR refuses it; tapeflow-enzyme inlines it,
// keeping @dot). Written anew.
func.func @dot(%a: memref<3x4xf64>, %row: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %a[%row, %j] : memref<3x4xf64>
    %p = arith.mulf %v, %v : f64
    %acc2 = arith.addf %acc, %p : f64
    scf.yield %acc2 : f64
  }
  return %s : f64
}
func.func @f(%x: memref<3x4xf64>, %y: memref<3x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %eps = arith.constant 1.0e-3 : f64
  scf.for %i = %c0 to %c3 step %c1 {
    %n = func.call @dot(%x, %i) : (memref<3x4xf64>, index) -> f64
    %ne = arith.addf %n, %eps : f64
    %inv = math.rsqrt %ne : f64
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %j] : memref<3x4xf64>
      %w = arith.mulf %v, %inv : f64
      memref.store %w, %y[%i, %j] : memref<3x4xf64>
    }
  }
  return
}
func.func @f_grad(%x: memref<3x4xf64>, %dx: memref<3x4xf64>, %y: memref<3x4xf64>, %dy: memref<3x4xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>) -> ()
  return
}
