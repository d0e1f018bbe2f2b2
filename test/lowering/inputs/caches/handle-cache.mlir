// A buffer read and written in the same loop with Enzyme's min-cut caching off,
// after Enzyme-MLIR's enzyme/test/MLIR/ReverseMode/scf_for_mutable_memory.mlir
// (a running sum written back into the buffer's first element every
// iteration): Enzyme caches, per iteration, the memref handle it wrote through
// (memref<6xmemref<6xf64>>) and the indices it read and wrote (memref<6xindex>).
func.func @k(%buf: memref<6xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %init = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %init) -> (f64) {
    %v = memref.load %buf[%i] : memref<6xf64>
    %sq = arith.mulf %v, %v : f64
    %n = arith.addf %acc, %sq : f64
    memref.store %n, %buf[%c0] : memref<6xf64>
    scf.yield %n : f64
  } {enzyme.disable_mincut = true}
  return %sum : f64
}
func.func @k_grad(%buf: memref<6xf64>, %dbuf: memref<6xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%buf, %dbuf, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<6xf64>, memref<6xf64>, f64) -> f64
  return %r : f64
}
