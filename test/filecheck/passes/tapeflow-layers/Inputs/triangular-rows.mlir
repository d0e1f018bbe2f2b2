// Row sums of a lower triangle, y[i] = sum_{j < i} sin(x[j]) * x[i] over 8 rows: the
// inner loop's trip count is the outer index (a triangular nest, 28 iterations).
func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %xi = memref.load %x[%i] : memref<8xf64>
    %s = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {
      %xj = memref.load %x[%j] : memref<8xf64>
      %t = math.sin %xj : f64
      %p = arith.mulf %t, %xi : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    memref.store %s, %y[%i] : memref<8xf64>
  }
  return
}

func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>, %y: memref<8xf64>, %dy: memref<8xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
