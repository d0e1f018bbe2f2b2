// RUN: tapeflow-opt -p 'tapeflow-unroll-primal{factor=4 stats=true}' %s 2>&1 | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-unroll-primal{factor=4},tapeflow-enzyme' %s | filecheck %s --check-prefix=AD

// The differentiated @f: its innermost loop (8 iterations) is unrolled 4-fold,
// the outer loop (2 iterations) by its annotation, after the inner one, 2-fold.
// @g is not differentiated: its loop is left alone.
// CHECK: tapeflow-unroll-primal: 2 loops considered (factors 4, 2)

// CHECK-LABEL: func.func @f
// CHECK:      %[[STEP2:.*]] = arith.constant 2 : index
// CHECK:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP2]]
// CHECK:      %[[STEP4:.*]] = arith.constant 4 : index
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[STEP4]] iter_args(%[[A:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:   %[[V0:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT:   %[[R0:.*]] = arith.mulf %[[A]], %[[V0]] : f64
// CHECK-NEXT:   %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT:   %[[V1:.*]] = memref.load %{{.*}}[%[[I]], %[[J1]]]
// CHECK-NEXT:   %[[R1:.*]] = arith.mulf %[[R0]], %[[V1]] : f64
// CHECK:        scf.yield %{{.*}} : f64
// CHECK-NOT:  tapeflow.unroll
// CHECK-LABEL: func.func @g
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args

// Enzyme then differentiates the unrolled loops (counted in unit steps).
// AD-LABEL: func.func private @diffef
// AD-COUNT-4: arith.mulf

func.func @f(%x: memref<2x8xf64>, %out: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    %p = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %one) -> (f64) {
      %v = memref.load %x[%i, %j] : memref<2x8xf64>
      %r = arith.mulf %a, %v : f64
      scf.yield %r : f64
    }
    memref.store %p, %out[%i] : memref<2xf64>
  } {tapeflow.unroll = 2 : i64}
  func.return
}

func.func @g(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %one) -> (f64) {
    %v = memref.load %x[%j] : memref<8xf64>
    %r = arith.mulf %a, %v : f64
    scf.yield %r : f64
  }
  func.return %s : f64
}

func.func @f_grad(%x: memref<2x8xf64>, %dx: memref<2x8xf64>, %out: memref<2xf64>, %dout: memref<2xf64>) {
  enzyme.autodiff @f(%x, %dx, %out, %dout) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>],
      ret_activity = []}> : (memref<2x8xf64>, memref<2x8xf64>, memref<2xf64>, memref<2xf64>) -> ()
  func.return
}
