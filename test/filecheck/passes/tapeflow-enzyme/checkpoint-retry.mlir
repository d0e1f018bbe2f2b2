// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

// A two-iteration checkpointed loop (found by the random-kernel property test;
// %x1 and %p are unused but needed for the failure): with the default pipeline,
// canonicalizing Enzyme's output before its caches are lowered folds away the
// one-iteration loop of a checkpoint block, and remove-unnecessary-enzyme-ops
// fails ("cannot remove 1 cache(s) pushed in this loop"). tapeflow-enzyme then
// lowers the caches first: a gradient with memref caches and no enzyme cache ops.

// CHECK-LABEL: func.func private @diffek
// CHECK-NOT:    enzyme.init
// CHECK-NOT:    enzyme.push
// CHECK:        memref.alloc() : memref<2x4xf64>
// CHECK:        memref.copy
// CHECK-NOT:    enzyme.pop
// CHECK:        func.return
func.func @k(%x0: memref<4xf64>, %x1: memref<4xf64>, %p: memref<5xindex>) -> f64 {
  %cst_f64_0 = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %cst_f64_4 = arith.constant 0.5 : f64
  %r2 = scf.for %i1 = %c0 to %c2 step %c1 iter_args(%a3 = %cst_f64_0) -> (f64) {
    %v4 = memref.load %x0[%i1] : memref<4xf64>
    %v5 = arith.addf %v4, %a3 : f64
    %v7 = arith.remui %i1, %c2 : index
    %c6 = arith.cmpi eq, %v7, %c0 : index
    %v8 = scf.if %c6 -> (f64) {
      %v10 = math.tanh %v5 : f64
      %v9 = math.exp %v10 : f64
      scf.yield %v9 : f64
    } else {
      %v11 = arith.addf %v5, %v5 : f64
      scf.yield %v11 : f64
    }
    %v12 = math.tanh %v8 : f64
    %v13 = arith.addf %v12, %cst_f64_0 : f64
    %v14 = arith.mulf %a3, %v13 : f64
    %v15 = arith.mulf %v14, %cst_f64_4 : f64
    scf.yield %v15 : f64
  } {enzyme.enable_checkpointing = true}
  func.return %r2 : f64
}
func.func @k_grad(%x0: memref<4xf64>, %d_x0: memref<4xf64>, %x1: memref<4xf64>, %d_x1: memref<4xf64>, %p: memref<5xindex>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x0, %d_x0, %x1, %d_x1, %p, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<5xindex>, f64) -> f64
  func.return %r : f64
}
