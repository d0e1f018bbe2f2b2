// Source: MLIR's test/Dialect/SCF/for-loop-peeling.mlir (@fully_dynamic_bounds):
// `scf.for %iv = %lb to %ub step %step` with all three run-time values and the
// tile size min(step, ub - iv). Written anew with values to differentiate, and a
// strided loop inside: over each tile every second element (`step 2` from the
// tile's start), so both loops of the nest are strided, the outer one by a
// run-time step. A running product carried across tiles scales y.
func.func @f(%x: memref<24xf64>, %y: memref<24xf64>, %lb: index, %ub: index, %step: index) {
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %iv = %lb to %ub step %step iter_args(%carry = %one) -> (f64) {
    %left = arith.subi %ub, %iv : index
    %size = arith.minsi %step, %left : index
    %end = arith.addi %iv, %size : index
    %tile = scf.for %k = %iv to %end step %c2 iter_args(%acc = %carry) -> (f64) {
      %v = memref.load %x[%k] : memref<24xf64>
      %w = memref.load %y[%k] : memref<24xf64>
      %c = math.cos %v : f64
      %p = arith.mulf %acc, %c : f64
      %q = arith.addf %w, %p : f64
      memref.store %q, %y[%k] : memref<24xf64>
      %n = arith.mulf %acc, %v : f64
      scf.yield %n : f64
    }
    scf.yield %tile : f64
  }
  %last = memref.load %y[%lb] : memref<24xf64>
  %z = arith.mulf %last, %r : f64
  memref.store %z, %y[%lb] : memref<24xf64>
  return
}

func.func @f_grad(%x: memref<24xf64>, %dx: memref<24xf64>, %y: memref<24xf64>, %dy: memref<24xf64>, %lb: index, %ub: index, %step: index) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %lb, %ub, %step) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_const>, #enzyme<activity enzyme_const>, #enzyme<activity enzyme_const>], ret_activity = []} : (memref<24xf64>, memref<24xf64>, memref<24xf64>, memref<24xf64>, index, index, index) -> ()
  return
}
