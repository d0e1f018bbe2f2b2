// Source: MLIR's test/Dialect/Affine/loop-tiling.mlir: the nest `affine-loop-tile`
// makes of a 2-D loop, tile loops `affine.for %i = 0 to N step T` and intra-tile
// loops `affine.for %ii = #id(%i) to min #ub(%i)` (the upper bound the min of the
// tile's end and N). Written anew, 7 x 10 tiled 3 x 4 (neither a multiple): the
// tile loops run 3 and 3 times, the last tiles partial. A 5-point smoothing of A
// accumulated into B, squared.
#id = affine_map<(d0) -> (d0)>
#ub3 = affine_map<(d0) -> (d0 + 3, 7)>
#ub4 = affine_map<(d0) -> (d0 + 4, 10)>
func.func @f(%A: memref<9x12xf64>, %B: memref<9x12xf64>) {
  %quarter = arith.constant 0.25 : f64
  affine.for %i = 0 to 7 step 3 {
    affine.for %j = 0 to 10 step 4 {
      affine.for %ii = #id(%i) to min #ub3(%i) {
        affine.for %jj = #id(%j) to min #ub4(%j) {
          %n = affine.load %A[%ii, %jj + 1] : memref<9x12xf64>
          %w = affine.load %A[%ii + 1, %jj] : memref<9x12xf64>
          %c = affine.load %A[%ii + 1, %jj + 1] : memref<9x12xf64>
          %e = affine.load %A[%ii + 1, %jj + 2] : memref<9x12xf64>
          %s = affine.load %A[%ii + 2, %jj + 1] : memref<9x12xf64>
          %b = affine.load %B[%ii + 1, %jj + 1] : memref<9x12xf64>
          %s0 = arith.addf %n, %w : f64
          %s1 = arith.addf %e, %s : f64
          %s2 = arith.addf %s0, %s1 : f64
          %m = arith.mulf %s2, %quarter : f64
          %d = arith.subf %m, %c : f64
          %sq = arith.mulf %d, %d : f64
          %nb = arith.addf %b, %sq : f64
          affine.store %nb, %B[%ii + 1, %jj + 1] : memref<9x12xf64>
        }
      }
    }
  }
  return
}

func.func @f_grad(%A: memref<9x12xf64>, %dA: memref<9x12xf64>, %B: memref<9x12xf64>, %dB: memref<9x12xf64>) {
  enzyme.autodiff @f(%A, %dA, %B, %dB) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<9x12xf64>, memref<9x12xf64>, memref<9x12xf64>, memref<9x12xf64>) -> ()
  return
}
