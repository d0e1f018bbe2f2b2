// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

// Enzyme-MLIR 0.0.16 emits invalid IR for this checkpointed loop (found by the
// random-kernel property test; minimised by hand): the loop overwrites x[i] with
// a value computed from x[i], which Enzyme cannot checkpoint here (docs/enzyme-bugs.md).
// The error is Enzyme's own, placed at the user's loop, with a note saying why.

// CHECK: upstream-checkpointing.mlir:[[# @LINE + 9]]:3: error: 'scf.yield' op must be the last operation in the parent block
// CHECK: (Enzyme rejected the module, pipeline
// CHECK: upstream-checkpointing.mlir:[[# @LINE + 7]]:3: note: Enzyme-MLIR 0.0.16 rejects its own output for some checkpointed loops that store a value read from memory into an argument's buffer
// CHECK-NOT: such a store
func.func @k(%x: memref<2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %one) -> (f64) {
    %v = memref.load %x[%i] : memref<2xf64>
    %s = math.sin %a : f64
    %w = arith.addf %v, %s : f64
    memref.store %w, %x[%i] : memref<2xf64>
    %n = arith.mulf %a, %s : f64
    scf.yield %n : f64
  } {enzyme.enable_checkpointing = true}
  return %r : f64
}
func.func @k_grad(%x: memref<2xf64>, %dx: memref<2xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<2xf64>, memref<2xf64>, f64) -> f64
  return %r : f64
}
