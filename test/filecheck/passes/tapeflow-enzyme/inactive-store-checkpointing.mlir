// Enzyme-MLIR 0.0.16 cannot checkpoint some loops that store a value read from
// memory into an argument's buffer: it rejects its own output (docs/enzyme-bugs.md,
// with a reproducer that has no TapeFlow rewrite in it). The store of a constant here is
// handed to Enzyme as a store of the constant read back from a scratch buffer (so
// that its adjoint zeroes the shadow, docs/enzyme-bugs.md), which is such a store;
// no placement of that route avoids it (the read hoisted out of the loop is
// rejected the same way), and without the route the gradient would keep the seed
// of x[i] where the constant overwrote it. The error says so, at the loop and at
// the store. (Found by the random-kernel property test.)
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

// CHECK: inactive-store-checkpointing.mlir:[[# @LINE + 10]]:3: error: 'scf.yield' op must be the last operation in the parent block
// CHECK: inactive-store-checkpointing.mlir:[[# @LINE + 9]]:3: note: Enzyme-MLIR 0.0.16 rejects its own output for some checkpointed loops that store a value read from memory into an argument's buffer (docs/enzyme-bugs.md); differentiate this loop without enzyme.enable_checkpointing
// CHECK-NEXT: inactive-store-checkpointing.mlir:[[# @LINE + 12]]:7: note: this store of a value without a derivative is such a store: tapeflow-enzyme hands it to Enzyme read back from a scratch buffer
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
