// CSR rows walked with a per-row step read from memory, only where it is
// positive: the count Enzyme sizes each row's caches by divides by that
// step inside the branch, which the other rows must not compute.
func.func @branch_step(%p: memref<5xindex>, %st: memref<4xindex>, %x: memref<20xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64

  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %p[%i] : memref<5xindex>
    %hi = memref.load %p[%i1] : memref<5xindex>
    %step = memref.load %st[%i] : memref<4xindex>
    %long = arith.cmpi ugt, %step, %c0 : index
    %s = scf.if %long -> (f64) {
      %r = scf.for %k = %lo to %hi step %step iter_args(%a = %zero) -> (f64) {
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
func.func @branch_step_grad(%p: memref<5xindex>, %st: memref<4xindex>, %x: memref<20xf64>, %d_x: memref<20xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) {
  enzyme.autodiff @branch_step(%p, %st, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<4xindex>, memref<20xf64>, memref<20xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
