// A sum of squared row dot products, sum_i (w . x_i)^2, over 8 rows of 24: each
// row's inner loop caches its two loads an iteration, and the row its dot
// product beside it (one value a row).
func.func @f(%x: memref<8x24xf64>, %w: memref<24xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c24 = arith.constant 24 : index
  %zero = arith.constant 0.0 : f64
  %loss = scf.for %i = %c0 to %c8 step %c1 iter_args(%tot = %zero) -> (f64) {
    %s = scf.for %k = %c0 to %c24 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%i, %k] : memref<8x24xf64>
      %wv = memref.load %w[%k] : memref<24xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %sq = arith.mulf %s, %s : f64
    %sum = arith.addf %tot, %sq : f64
    scf.yield %sum : f64
  }
  return %loss : f64
}

func.func @f_grad(%x: memref<8x24xf64>, %d_x: memref<8x24xf64>, %w: memref<24xf64>, %d_w: memref<24xf64>, %n: index, %seed: f64) -> f64 {
  %r = enzyme.autodiff @f(%x, %d_x, %w, %d_w, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8x24xf64>, memref<8x24xf64>, memref<24xf64>, memref<24xf64>, index, f64) -> f64
  return %r : f64
}
