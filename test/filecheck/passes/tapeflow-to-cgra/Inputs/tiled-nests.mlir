// Two nests whose tiles' bookkeeping `tapeflow-to-cgra` places (tile-bookkeeping.mlir).
//
// @rows: a log-sum-exp over each of 8 rows of 4, y[i] = log(sum_k exp(x[i][k])):
// the tile of several rows holds two groups of values (the inner loop's and the
// row's), so each REV tile computes its rows' first rows before its loop.
func.func @rows(%x: memref<8x4xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %x[%i, %k] : memref<8x4xf64>
      %e = math.exp %v : f64
      %n = arith.addf %acc, %e : f64
      scf.yield %n : f64
    }
    %l = math.log %s : f64
    memref.store %l, %y[%i] : memref<8xf64>
  }
  return
}

func.func @rows_grad(%x: memref<8x4xf64>, %dx: memref<8x4xf64>, %y: memref<8xf64>, %dy: memref<8xf64>) {
  enzyme.autodiff @rows(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}

// @gram: the upper triangle of x^T x (PolyBench's covariance without the means),
// c[i][j] = sum_k x[k][i] * x[k][j] for j >= i: the k loop has constant bounds
// inside a triangular nest.
func.func @gram(%x: memref<8x4xf64>, %c: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %i to %c4 step %c1 {
      %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %x[%k, %i] : memref<8x4xf64>
        %b = memref.load %x[%k, %j] : memref<8x4xf64>
        %p = arith.mulf %a, %b : f64
        %n = arith.addf %acc, %p : f64
        scf.yield %n : f64
      }
      memref.store %s, %c[%i, %j] : memref<4x4xf64>
    }
  }
  return
}

func.func @gram_grad(%x: memref<8x4xf64>, %dx: memref<8x4xf64>, %c: memref<4x4xf64>, %dc: memref<4x4xf64>) {
  enzyme.autodiff @gram(%x, %dx, %c, %dc) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
