// The spellings of MLIR that other people's kernels use, read by the xDSL parser:
// Enzyme's tests give activities in an attribute dictionary with the opaque
// `#enzyme<activity ...>` attribute; MLIR lets `scf.if` name one result type
// without parentheses; `memref.copy` has a custom form.
// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s | tapeflow-opt | filecheck %s

func.func @f(%x: f64, %c: i1) -> f64 {
  %r = scf.if %c -> f64 {
    %m = arith.mulf %x, %x : f64
    scf.yield %m : f64
  } else {
    scf.yield %x : f64
  }
  return %r : f64
}
// CHECK-LABEL: func.func @f
// CHECK: scf.if %{{.*}} -> (f64) {

func.func @copy(%a: memref<4xf64>, %b: memref<4xf64>) {
  memref.copy %a, %b : memref<4xf64> to memref<4xf64>
  return
}
// CHECK-LABEL: func.func @copy
// CHECK-NEXT: memref.copy %{{.*}}, %{{.*}} : memref<4xf64> to memref<4xf64>

func.func @attribute_spelling(%x: f64, %c: i1, %d: f64) -> f64 {
  %r = enzyme.autodiff @f(%x, %c, %d) { activity=[#enzyme<activity enzyme_active>, #enzyme<activity enzyme_const>], ret_activity=[#enzyme<activity enzyme_activenoneed>] } : (f64, i1, f64) -> f64
  return %r : f64
}
// CHECK-LABEL: func.func @attribute_spelling
// CHECK: enzyme.autodiff @f({{.*}}) <{activity = [#enzyme.activity<enzyme_active>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_activenoneed>]}>

func.func @property_spelling(%x: f64, %c: i1, %d: f64) -> f64 {
  %r = enzyme.autodiff @f(%x, %c, %d) <{activity=[#enzyme<activity enzyme_active>, #enzyme.activity<enzyme_const>], ret_activity=[#enzyme<activity enzyme_activenoneed>]}> : (f64, i1, f64) -> f64
  return %r : f64
}
// CHECK-LABEL: func.func @property_spelling
// CHECK: enzyme.autodiff @f({{.*}}) <{activity = [#enzyme.activity<enzyme_active>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_activenoneed>]}>
