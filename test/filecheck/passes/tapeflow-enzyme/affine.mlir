// An affine kernel through the real Enzyme: MLIR's lower-affine runs first, so the
// gradient is plain scf/memref, and its ops sit at the lines of the affine ops
// they come from.
// RUN: tapeflow-opt -p tapeflow-enzyme %s --print-debuginfo | filecheck %s

func.func @sumsq(%x: memref<6xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %s = affine.for %i = 0 to 6 iter_args(%acc = %zero) -> (f64) {
    %v = affine.load %x[%i] : memref<6xf64>
    %sq = arith.mulf %v, %v : f64
    %n = arith.addf %acc, %sq : f64
    affine.yield %n : f64
  }
  return %s : f64
}

func.func @sumsq_grad(%x: memref<6xf64>, %dx: memref<6xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @sumsq(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<6xf64>, memref<6xf64>, f64) -> f64
  return %r : f64
}

// CHECK-LABEL: func.func private @diffesumsq
// CHECK-NOT: affine.{{(for|load|store|yield)}}
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<6xf64> loc("{{.*}}affine.mlir":9:
// CHECK: arith.mulf {{.*}} loc("{{.*}}affine.mlir":10:
