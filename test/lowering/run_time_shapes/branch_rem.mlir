// CSR rows, every third row skipped (`i % 3 == 1`): the mask is computed by
// `arith.remui`, which xDSL 0.74 declares without MLIR's `NoMemoryEffect`; the
// row pointers loaded inside the branch are in bounds on every row.
func.func @branch_rem(%p: memref<5xindex>, %x: memref<20xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64

  scf.for %i = %c0 to %c4 step %c1 {
    %c3 = arith.constant 3 : index
    %m = arith.remui %i, %c3 : index
    %long = arith.cmpi ne, %m, %c1 : index
    %s = scf.if %long -> (f64) {
      %i1 = arith.addi %i, %c1 : index
      %lo = memref.load %p[%i] : memref<5xindex>
      %hi = memref.load %p[%i1] : memref<5xindex>
      %r = scf.for %k = %lo to %hi step %c1 iter_args(%a = %zero) -> (f64) {
        %u = memref.load %x[%k] : memref<20xf64>
        %th = math.tanh %u : f64
        %q = arith.mulf %a, %th : f64
        %q2 = arith.addf %q, %th : f64
        scf.yield %q2 : f64
      }
      scf.yield %r : f64
    } else {
      scf.yield %zero : f64
    }
    memref.store %s, %y[%i] : memref<4xf64>
  }
  return
}
func.func @branch_rem_grad(%p: memref<5xindex>, %x: memref<20xf64>, %d_x: memref<20xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) {
  enzyme.autodiff @branch_rem(%p, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<20xf64>, memref<20xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
