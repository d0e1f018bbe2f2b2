// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

func.func @square(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  %r = arith.mulf %v, %v : f64
  func.return %r : f64
}

// CHECK-LABEL: func.func @grad
// CHECK: %{{.*}} = enzyme.autodiff @square(%{{.*}}, %{{.*}}, %{{.*}}) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
func.func @grad(%x: memref<4xf64>, %dx: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @square(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  func.return %r : f64
}

// Hand-written IR may give the activities as attributes; they become properties.
// CHECK-LABEL: func.func @grad_attrs
// CHECK: enzyme.autodiff @square(%{{.*}}, %{{.*}}) <{activity = [#enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_activenoneed>]}> {keep = true}
func.func @grad_attrs(%x: memref<4xf64>, %seed: f64) {
  enzyme.autodiff @square(%x, %seed) {activity = [#enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_activenoneed>], keep = true} : (memref<4xf64>, f64) -> ()
  func.return
}

// The cache and gradient ops exactly as Enzyme prints them (generic format).
// CHECK-LABEL: func.func @tape_ops
// CHECK-NEXT: %[[C:.*]] = enzyme.init : !enzyme.Cache<f64>
// CHECK-NEXT: enzyme.push %[[C]], %{{.*}} : !enzyme.Cache<f64>, f64
// CHECK-NEXT: %[[P:.*]] = enzyme.pop %[[C]] : !enzyme.Cache<f64> -> f64
// CHECK-NEXT: %[[G:.*]] = enzyme.init : !enzyme.Gradient<f64>
// CHECK-NEXT: enzyme.set %[[G]], %[[P]] : !enzyme.Gradient<f64>, f64
// CHECK-NEXT: %{{.*}} = enzyme.get %[[G]] : !enzyme.Gradient<f64> -> f64
// CHECK-NEXT: %[[MC:.*]] = enzyme.init : !enzyme.Cache<memref<8xf64>>
// CHECK-NEXT: enzyme.push %[[MC]], %{{.*}} : !enzyme.Cache<memref<8xf64>>, memref<8xf64>
// CHECK-NEXT: enzyme.fill_zero %{{.*}} : memref<8xf64>
// CHECK-NEXT: %{{.*}} = enzyme.ignore_derivatives %[[P]] : f64 -> f64
func.func @tape_ops(%v: f64, %m: memref<8xf64>) -> f64 {
  %0 = "enzyme.init"() : () -> !enzyme.Cache<f64>
  "enzyme.push"(%0, %v) : (!enzyme.Cache<f64>, f64) -> ()
  %1 = "enzyme.pop"(%0) : (!enzyme.Cache<f64>) -> f64
  %2 = "enzyme.init"() : () -> !enzyme.Gradient<f64>
  "enzyme.set"(%2, %1) : (!enzyme.Gradient<f64>, f64) -> ()
  %3 = "enzyme.get"(%2) : (!enzyme.Gradient<f64>) -> f64
  %4 = "enzyme.init"() : () -> !enzyme.Cache<memref<8xf64>>
  "enzyme.push"(%4, %m) : (!enzyme.Cache<memref<8xf64>>, memref<8xf64>) -> ()
  "enzyme.fill_zero"(%m) : (memref<8xf64>) -> ()
  %5 = "enzyme.ignore_derivatives"(%1) : (f64) -> f64
  func.return %3 : f64
}
