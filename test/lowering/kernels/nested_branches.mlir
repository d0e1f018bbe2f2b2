// Tapes in both branches of an scf.if and in an scf.if nested in the taken branch,
// inside a loop: every branch's cached values get a region and conditional pieces
// of their own, pushed and popped under the conditions Enzyme recomputes in REV.
// Kind: Enzyme-MLIR's reverse-mode nested_if test (enzyme/test/MLIR/ReverseMode/
// scf_if.mlir: an scf.if in the else of another, cos in one branch), put in a loop
// over arrays with in-place updates so that Enzyme must cache. Written anew.
func.func @f(%x: memref<6xf64>, %y: memref<6xf64>, %z: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c6 step %c1 {
    %v = memref.load %x[%i] : memref<6xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    scf.if %p {
      %a = memref.load %y[%i] : memref<6xf64>
      %q = arith.cmpf ogt, %a, %one : f64
      scf.if %q {
        %b = memref.load %z[%i] : memref<6xf64>
        %s = math.sin %b : f64
        %t = arith.mulf %s, %a : f64
        memref.store %t, %z[%i] : memref<6xf64>
      }
      %e = math.exp %a : f64
      %ev = arith.mulf %e, %v : f64
      memref.store %ev, %y[%i] : memref<6xf64>
    } else {
      %b = memref.load %z[%i] : memref<6xf64>
      %c = math.cos %b : f64
      %cv = arith.mulf %c, %v : f64
      memref.store %cv, %z[%i] : memref<6xf64>
    }
    %w = arith.mulf %v, %v : f64
    memref.store %w, %x[%i] : memref<6xf64>
  }
  return
}
func.func @f_grad(%x: memref<6xf64>, %dx: memref<6xf64>, %y: memref<6xf64>, %dy: memref<6xf64>, %z: memref<6xf64>, %dz: memref<6xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %z, %dz) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
