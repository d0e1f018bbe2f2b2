// RUN: tapeflow-opt -p 'tapeflow-unroll-primal{factor=4 stats=true}' %s 2>&1 | filecheck %s

// 10 iterations asked for 4: two trips of 4 copies (the loop now ends at 8), then
// the last 2 iterations as copies in line, reading the product the loop carried.
// CHECK: tapeflow-unroll-primal: 1 loops considered (factors 4)

// CHECK-LABEL: func.func @f
// CHECK:      %[[UB:.*]] = arith.constant 8 : index
// CHECK:      %[[STEP:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[P:.*]] = scf.for %{{.*}} = %{{.*}} to %[[UB]] step %[[STEP]] iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK-COUNT-4: arith.mulf
// CHECK:      scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[I8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[V8:.*]] = memref.load %{{.*}}[%[[I8]]]
// CHECK-NEXT: %[[R8:.*]] = arith.mulf %[[P]], %[[V8]] : f64
// CHECK-NEXT: %[[I9:.*]] = arith.constant 9 : index
// CHECK-NEXT: %[[V9:.*]] = memref.load %{{.*}}[%[[I9]]]
// CHECK-NEXT: %[[R9:.*]] = arith.mulf %[[R8]], %[[V9]] : f64
// CHECK-NEXT: func.return %[[R9]] : f64

func.func @f(%x: memref<10xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %j = %c0 to %c10 step %c1 iter_args(%a = %one) -> (f64) {
    %v = memref.load %x[%j] : memref<10xf64>
    %r = arith.mulf %a, %v : f64
    scf.yield %r : f64
  }
  func.return %s : f64
}

func.func @f_grad(%x: memref<10xf64>, %dx: memref<10xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>],
      ret_activity = [#enzyme.activity<enzyme_active>]}>
      : (memref<10xf64>, memref<10xf64>, f64) -> f64
  func.return %r : f64
}
