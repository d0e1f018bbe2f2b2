// TOOL: tapeflow-sim
// ARGS: {file} --function f_grad --variant tapeflow --preset Tflow2k --out {out} --json {json}
// ERROR: {file}:15:5: 'memref.store' writes the memref.global @scratch in @f, which enzyme.autodiff differentiates: Enzyme-MLIR gives a global no shadow, so the derivatives that flow through it would be silently lost
// A global written with active values: Enzyme would return a zero gradient without a word.
memref.global "private" @scratch : memref<4xf64> = uninitialized
func.func @f(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %s = memref.get_global @scratch : memref<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %xi = memref.load %x[%i] : memref<4xf64>
    %sq = arith.mulf %xi, %xi : f64
    memref.store %sq, %s[%i] : memref<4xf64>
  }
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %s[%i] : memref<4xf64>
    %e = math.exp %v : f64
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  return %r : f64
}
func.func @f_grad(%x: memref<4xf64>, %d: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %d, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
