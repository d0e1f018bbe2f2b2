// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

// A loop annotated tapeflow.unroll is unrolled before Enzyme differentiates it, as
// clang's `#pragma clang loop unroll_count(4)` is applied before Enzyme for LLVM:
// the gradient's forward sweep runs 2 trips of the four copies, each copy's value
// cached in a buffer of 2 entries, and the annotation is gone.
// CHECK-NOT:  tapeflow.unroll
// CHECK-LABEL: func.func private @diffef
// CHECK:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK:      scf.for %{{.*}} = %{{.*}} to %[[TWO]] step %{{.*}} iter_args
// CHECK-COUNT-4: memref.load %arg0
// CHECK:      scf.yield
// CHECK-NOT:  tapeflow.unroll

func.func @f(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %one) -> (f64) {
    %v = memref.load %x[%j] : memref<8xf64>
    %r = arith.mulf %a, %v : f64
    scf.yield %r : f64
  } {tapeflow.unroll = 4 : i64}
  func.return %s : f64
}

func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>],
      ret_activity = [#enzyme.activity<enzyme_active>]}>
      : (memref<8xf64>, memref<8xf64>, f64) -> f64
  func.return %r : f64
}
