// A band of a width computed from data, w = fptosi(|x[r]| * 3), clamped at 0 and 4
// (max(r - w, 0), min(r + w + 1, 4)), x[r] overwritten.
func.func @band(%x: memref<5xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3i = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %k3 = arith.constant 3.0 : f64
  %h = arith.constant 0.1 : f64
  %z = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    %xr = memref.load %x[%r] : memref<5xf64>
    %a = math.absf %xr : f64
    %s = arith.mulf %a, %k3 : f64
    %si = arith.fptosi %s : f64 to i64
    %m0 = arith.index_cast %si : i64 to index
    %m = arith.addi %m0, %c1 : index
    %lo0 = arith.subi %r, %m0 : index
    %lo = arith.maxsi %lo0, %c0 : index
    %hi0 = arith.addi %r, %m : index
    %hi = arith.minsi %hi0, %c4 : index
    %v = scf.for %j = %lo to %hi step %c1 iter_args(%u = %xr) -> (f64) {
      %yj = memref.load %y[%j] : memref<4xf64>
      %p = arith.mulf %u, %yj : f64
      %th = math.tanh %p : f64
      %n = arith.addf %u, %th : f64
      scf.yield %n : f64
    }
    memref.store %v, %x[%r] : memref<5xf64>
  }
  return
}
func.func @band_grad(%x: memref<5xf64>, %dx: memref<5xf64>, %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @band(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xf64>, memref<5xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
