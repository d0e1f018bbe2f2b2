// Source: the loop MLIR's scf loop unrolling emits (test/Dialect/SCF/loop-unroll.mlir,
// unroll factor 2 of a loop with an even trip count: `step %c2`, the body written
// for iv and iv + 1, no epilogue). Written anew: a two-element recurrence over
// x carried in iter_args, each pair of y updated from it. 8 is a multiple of 2, so
// Enzyme-MLIR 0.0.16 alone sizes this loop's caches right (4 entries), but its
// reverse sweep visits i = 7 - (i' - 0) = 7, 5, 3, 1 (the reverse of a step-1
// loop) instead of 6, 4, 2, 0, and reads x[8] (docs/enzyme-bugs.md).
func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.for %i = %c0 to %c8 step %c2 iter_args(%a = %zero, %b = %zero) -> (f64, f64) {
    %i1 = arith.addi %i, %c1 : index
    %x0 = memref.load %x[%i] : memref<8xf64>
    %x1 = memref.load %x[%i1] : memref<8xf64>
    %y0 = memref.load %y[%i] : memref<8xf64>
    %y1 = memref.load %y[%i1] : memref<8xf64>
    %p = arith.mulf %x0, %x1 : f64
    %a2 = arith.addf %a, %p : f64
    %e = math.exp %x1 : f64
    %b2 = arith.addf %b, %e : f64
    %n0 = arith.mulf %y0, %a2 : f64
    %n1 = arith.mulf %y1, %b2 : f64
    memref.store %n0, %y[%i] : memref<8xf64>
    memref.store %n1, %y[%i1] : memref<8xf64>
    scf.yield %a2, %b2 : f64, f64
  }
  %s = arith.mulf %r#0, %r#1 : f64
  memref.store %s, %x[%c0] : memref<8xf64>
  return
}

func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>, %y: memref<8xf64>, %dy: memref<8xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
