// A tape holding an f64 and an i1 per iteration: Enzyme caches the branch
// condition itself (its operands are overwritten) next to the value the branch
// squares, and REV branches on the cached i1.
// Kind: Enzyme-MLIR's reverse-mode scf.if tests (enzyme/test/MLIR/ReverseMode/
// scf_if.mlir) in a loop, as a PolyBench-style select between two updates
// (`x[i] = x[i] > y[i] ? x[i]*x[i] : 0.5*x[i]; y[i] *= 0.5;`). Written anew.
func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant 0.5 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %w = memref.load %y[%i] : memref<8xf64>
    %gt = arith.cmpf ogt, %v, %w : f64
    %r = scf.if %gt -> (f64) {
      %sq = arith.mulf %v, %v : f64
      scf.yield %sq : f64
    } else {
      %hv = arith.mulf %half, %v : f64
      scf.yield %hv : f64
    }
    memref.store %r, %x[%i] : memref<8xf64>
    %hw = arith.mulf %half, %w : f64
    memref.store %hw, %y[%i] : memref<8xf64>
  }
  return
}

func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>, %y: memref<8xf64>, %dy: memref<8xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
