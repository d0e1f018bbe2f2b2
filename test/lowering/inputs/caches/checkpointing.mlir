// A loop Enzyme checkpoints (`enzyme.enable_checkpointing`), after Enzyme-MLIR's
// enzyme/test/MLIR/ReverseMode/scf_for_checkpointing_mutable_memory.mlir: the
// loop is split into sqrt(n) blocks; the forward sweep snapshots the buffer it
// overwrites (memref.copy into a subview of a memref<3x6xf64>) and the block's
// carried value, and the reverse sweep recomputes each block into buffers it
// allocates per block.
func.func @k(%x: memref<6xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %c6 step %c1 iter_args(%a = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<6xf64>
    %p = arith.mulf %a, %xi : f64
    %q = math.sin %p : f64
    %r = arith.addf %q, %xi : f64
    memref.store %q, %x[%i] : memref<6xf64>
    scf.yield %r : f64
  } {enzyme.enable_checkpointing = true}
  return %s : f64
}
func.func @k_grad(%x: memref<6xf64>, %dx: memref<6xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<6xf64>, memref<6xf64>, f64) -> f64
  return %r : f64
}
