// Enzyme-MLIR 0.0.16 rejects a checkpointed loop that stores an active value into
// a buffer (README, known upstream limitations). The store of a constant here is
// handed to Enzyme as an active store (so that its adjoint zeroes the shadow,
// docs/enzyme-bugs.md), and Enzyme's rejection says so; without it the gradient
// would keep the seed of x[i] where the constant overwrote it. (Found by the
// random-kernel property test.)
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

// CHECK: inactive-store-checkpointing.mlir:[[# @LINE + 9]]:3: error: 'scf.yield' op must be the last operation in the parent block
// CHECK: note: tapeflow-enzyme handed Enzyme the stores of values without a derivative in @k as active stores
func.func @k(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %r = scf.for %i = %c1 to %c4 step %c1 iter_args(%a = %one) -> (f64) {
    %rem = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    scf.if %even {
      memref.store %half, %x[%i] : memref<4xf64>
    }
    %t = math.tanh %a : f64
    %n = arith.mulf %a, %t : f64
    scf.yield %n : f64
  } {enzyme.enable_checkpointing = true}
  return %r : f64
}
func.func @k_grad(%x: memref<4xf64>, %dx: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
