// Values of four element types cached in one loop: an f16 and an f32 input, an
// i32 index table (advanced in place, so its values must be cached) and an f64
// weight gathered through it, in the mixed-precision style of Enzyme-MLIR's
// f32 reverse-mode tests (enzyme/test/MLIR/ReverseMode/scf_for.mlir, arith.mlir).
func.func @k(%h: memref<4xf16>, %s: memref<4xf32>, %p: memref<4xi32>, %y: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (f64) {
    %hi = memref.load %h[%i] : memref<4xf16>
    %si = memref.load %s[%i] : memref<4xf32>
    %pi = memref.load %p[%i] : memref<4xi32>
    %j = arith.index_cast %pi : i32 to index
    %yj = memref.load %y[%j] : memref<4xf64>
    %hh = arith.mulf %hi, %hi : f16
    %he = arith.extf %hh : f16 to f32
    %ss = arith.mulf %he, %si : f32
    %sq = arith.mulf %ss, %si : f32
    %se = arith.extf %sq : f32 to f64
    %t = arith.mulf %se, %yj : f64
    %u = arith.mulf %t, %yj : f64
    %q = arith.addf %a, %u : f64
    %pn = arith.addi %pi, %one : i32
    %pm = arith.andi %pn, %three : i32
    memref.store %pm, %p[%i] : memref<4xi32>
    scf.yield %q : f64
  }
  return %r : f64
}
func.func @k_grad(%h: memref<4xf16>, %dh: memref<4xf16>, %s: memref<4xf32>, %ds: memref<4xf32>, %p: memref<4xi32>, %y: memref<4xf64>, %dy: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%h, %dh, %s, %ds, %p, %y, %dy, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf16>, memref<4xf16>, memref<4xf32>, memref<4xf32>, memref<4xi32>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
