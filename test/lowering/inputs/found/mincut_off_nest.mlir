// Found by the random-kernel campaign (test/lowering/random_kernels.py, hypothesis,
// shrunk): with min-cut caching off Enzyme caches the f32 loads of a 3-deep nest in a
// second buffer whose accesses fell into the first region's layer, and
// tapeflow-streams stopped with "layer 0 touches several regions".
func.func @k(%x0: memref<2xf64>, %x1: memref<2x2x1xf32>, %p: memref<5xindex>) -> f64 {
  %cst_f64_0 = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %cst_f64_4 = arith.constant 0.5 : f64
  %r2 = scf.for %i1 = %c0 to %c2 step %c1 iter_args(%a3 = %cst_f64_0) -> (f64) {
    %r5 = scf.for %i4 = %c0 to %c2 step %c1 iter_args(%a6 = %a3) -> (f64) {
      %r8 = scf.for %i7 = %c0 to %c1 step %c1 iter_args(%a9 = %a6) -> (f64) {
        %v10 = memref.load %x1[%i1, %i4, %i7] : memref<2x2x1xf32>
        %v11 = arith.extf %v10 : f32 to f64
        %v12 = math.tanh %v11 : f64
        %v13 = arith.addf %v12, %cst_f64_0 : f64
        %v14 = arith.mulf %a9, %v13 : f64
        %v15 = arith.mulf %v14, %cst_f64_4 : f64
        scf.yield %v15 : f64
      }
      scf.yield %r8 : f64
    }
    scf.yield %r5 : f64
  } {enzyme.disable_mincut = true}
  func.return %r2 : f64
}
func.func @k_grad(%x0: memref<2xf64>, %d_x0: memref<2xf64>, %x1: memref<2x2x1xf32>, %d_x1: memref<2x2x1xf32>, %p: memref<5xindex>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x0, %d_x0, %x1, %d_x1, %p, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<2xf64>, memref<2xf64>, memref<2x2x1xf32>, memref<2x2x1xf32>, memref<5xindex>, f64) -> f64
  func.return %r : f64
}
