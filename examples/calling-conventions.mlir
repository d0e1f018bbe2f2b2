func.func @f(%x: f64, %y: f64, %a: memref<3xf64>) -> f64 {
  %c1 = arith.constant 1 : index
  %a1 = memref.load %a[%c1] : memref<3xf64>
  %p = arith.mulf %x, %y : f64
  %q = arith.mulf %p, %a1 : f64
  return %q : f64
}

// The result is active: the primal result comes back, then the adjoint of %x.
func.func @with_value(%x: f64, %y: f64, %a: memref<3xf64>, %da: memref<3xf64>, %seed: f64) -> (f64, f64) {
  %r:2 = enzyme.autodiff @f(%x, %y, %a, %da, %seed) <{activity = [#enzyme.activity<enzyme_active>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (f64, f64, memref<3xf64>, memref<3xf64>, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

// The result is activenoneed: only the adjoint of %x comes back.
func.func @adjoint_only(%x: f64, %y: f64, %a: memref<3xf64>, %da: memref<3xf64>, %seed: f64) -> f64 {
  %r = enzyme.autodiff @f(%x, %y, %a, %da, %seed) <{activity = [#enzyme.activity<enzyme_active>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_activenoneed>]}> : (f64, f64, memref<3xf64>, memref<3xf64>, f64) -> f64
  return %r : f64
}
