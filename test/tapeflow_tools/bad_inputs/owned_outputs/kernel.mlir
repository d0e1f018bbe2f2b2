// TOOL: tapeflow-sim
// ARGS: {copy} --function f_grad --variant enzyme --preset Enzyme32k --json {json} --timeline {copy}
// ERROR: tapeflow-sim: error: --timeline {copy}: names an input (the module {copy}); writing it would destroy the input: name another file
// The timeline named as the kernel itself: refused before anything runs, the kernel kept.
func.func @f(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  %e = math.exp %v : f64
  return %e : f64
}
func.func @f_grad(%x: memref<4xf64>, %d: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %d, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
