// Written for this project: a blocked loop counted in i32, as C's
// `for (int i = 0; i < n; i += 3) for (int k = i; k < i + 3; k++)` lowers (the
// block's bounds differ by the constant 3 in i32 arithmetic, which wraps near
// 2**31). Each element becomes tanh(sin(x[k]) * y[k]); y is updated in place.
func.func @f(%x: memref<64xf64>, %y: memref<64xf64>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  scf.for %i = %c0 to %n step %c3 : i32 {
    %end = arith.addi %i, %c3 : i32
    scf.for %k = %i to %end step %c1 : i32 {
      %ix = arith.index_cast %k : i32 to index
      %v = memref.load %x[%ix] : memref<64xf64>
      %w = memref.load %y[%ix] : memref<64xf64>
      %s = math.sin %v : f64
      %t = arith.mulf %s, %w : f64
      %u = math.tanh %t : f64
      memref.store %u, %y[%ix] : memref<64xf64>
    }
  }
  return
}

func.func @f_grad(%x: memref<64xf64>, %dx: memref<64xf64>, %y: memref<64xf64>, %dy: memref<64xf64>, %n: i32) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %n) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>], ret_activity = []} : (memref<64xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>, i32) -> ()
  return
}
