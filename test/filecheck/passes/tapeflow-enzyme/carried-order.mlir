// A loop carrying a sum initialised by a constant before a recurrence initialised
// by an active value (f(r) = r + r^2): Enzyme-MLIR 0.0.16 would add the adjoint of
// the sum's initial value to r's (docs/enzyme-bugs.md). tapeflow-enzyme hands it
// the loop with the recurrence first; the primal Enzyme returns computes the same
// values with the carried values in that order, and the reverse loop's first
// result (the recurrence's adjoint) is what reaches r's shadow.
// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

func.func @f(%x: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.000000e+00 : f64
  %r = memref.load %x[%c0] : memref<1xf64>
  %p:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %zero, %o = %r) -> (f64, f64) {
    %a2 = arith.addf %a, %o : f64
    %o2 = arith.mulf %r, %o : f64
    scf.yield %a2, %o2 : f64, f64
  }
  memref.store %p#0, %x[%c0] : memref<1xf64>
  return
}
func.func @f_grad(%x: memref<1xf64>, %dx: memref<1xf64>) {
  enzyme.autodiff @f(%x, %dx) <{activity = [#enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<1xf64>, memref<1xf64>) -> ()
  return
}

// CHECK-LABEL: func.func @f(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[R:.*]] = memref.load
// CHECK:         %[[O:.*]], %[[A:.*]] = scf.for %{{.*}} iter_args(%[[OI:.*]] = %[[R]], %[[AI:.*]] = %[[ZERO]]) -> (f64, f64) {
// CHECK-NEXT:      %[[A2:.*]] = arith.addf %[[AI]], %[[OI]] : f64
// CHECK-NEXT:      %[[O2:.*]] = arith.mulf %[[R]], %[[OI]] : f64
// CHECK-NEXT:      scf.yield %[[O2]], %[[A2]] : f64, f64
// CHECK:         memref.store %[[A]], %{{.*}}[%{{.*}}] : memref<1xf64>
// CHECK-LABEL: func.func private @diffef(
// CHECK:         %[[DO:.*]], %{{.*}} = scf.for %{{.*}} iter_args(
// CHECK:         arith.addf %{{.*}}, %[[DO]]
