// RUN: not tapeflow-opt -p 'tapeflow-unroll-primal' %s 2>&1 | filecheck %s
// RUN: not tapeflow-opt -p 'tapeflow-enzyme' %s 2>&1 | filecheck %s

// An annotation on an affine.for is refused, not dropped: only an scf.for is unrolled.
// CHECK: cannot unroll the affine.for at {{.*}}refused-affine.mlir:9:3 as its tapeflow.unroll asks: only an scf.for is unrolled

func.func @f(%x: memref<8xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %s = affine.for %j = 0 to 8 iter_args(%a = %zero) -> (f64) {
    %v = affine.load %x[%j] : memref<8xf64>
    %r = arith.addf %a, %v : f64
    affine.yield %r : f64
  } {tapeflow.unroll = 4 : i64}
  func.return %s : f64
}

func.func @f_grad(%x: memref<8xf64>, %dx: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  return %r : f64
}
