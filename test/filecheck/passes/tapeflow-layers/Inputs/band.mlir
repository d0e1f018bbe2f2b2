// A dynamic program over the band |i - j| <= 1 of a 4x4 grid,
// `R[i][j] = sin(R[i-1][j] + R[i][j-1]) * d[j]` for j from max(1, i - 1) to
// min(4, i + 1): the inner loop's bounds clamp the outer index, and REV recomputes
// them at its mirrored iterations (the shape of a Sakoe-Chiba band in dynamic
// time warping).
func.func @f(%d: memref<5xf64>, %R: memref<5x5xf64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c1 to %c5 step %c1 {
    %im = arith.subi %i, %c1 : index
    %lo = arith.maxsi %im, %c1 : index
    %to = arith.addi %i, %c2 : index
    %hi = arith.minsi %to, %c5 : index
    scf.for %j = %lo to %hi step %c1 {
      %jm = arith.subi %j, %c1 : index
      %a = memref.load %R[%im, %j] : memref<5x5xf64>
      %b = memref.load %R[%i, %jm] : memref<5x5xf64>
      %s = arith.addf %a, %b : f64
      %t = math.sin %s : f64
      %w = memref.load %d[%j] : memref<5xf64>
      %r = arith.mulf %t, %w : f64
      memref.store %r, %R[%i, %j] : memref<5x5xf64>
    }
  }
  return
}
func.func @f_grad(%d: memref<5xf64>, %dd: memref<5xf64>, %R: memref<5x5xf64>, %dR: memref<5x5xf64>) {
  enzyme.autodiff @f(%d, %dd, %R, %dR) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xf64>, memref<5xf64>, memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
