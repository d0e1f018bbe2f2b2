// A tape value stored under `scf.if` inside a loop: an in-place update done only
// where a mask holds, with the overwritten value cached inside the branch.
// Kind: Enzyme-MLIR's reverse-mode branch tests (enzyme/test/MLIR/ReverseMode/
// scf_if.mlir: scf.if with results, nested in the differentiated function) put in
// a loop over arrays, the way a masked in-place update reads in PolyBench-style C
// that Polygeist emits (`if (x[i] > 0) y[i] = sin(y[i]) * x[i];`). Written anew.
func.func @f(%x: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %pos = arith.cmpf ogt, %v, %zero : f64
    scf.if %pos {
      %a = memref.load %y[%i] : memref<8xf64>
      %s = math.sin %a : f64
      %b = arith.mulf %s, %v : f64
      memref.store %b, %y[%i] : memref<8xf64>
    }
    %w = arith.mulf %v, %v : f64
    memref.store %w, %x[%i] : memref<8xf64>
  }
  return
}

func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>, %y: memref<8xf64>, %dy: memref<8xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
