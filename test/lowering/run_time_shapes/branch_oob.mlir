// The rows of a mask, each row `i` summing the entries of row `i + 1`, the
// last row masked off: its row pointer `p[i + 2]` would read past the buffer
// on the last row, so the extents cannot be computed on every row.
func.func @branch_oob(%p: memref<5xindex>, %mask: memref<4xindex>, %x: memref<20xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64

  scf.for %i = %c0 to %c4 step %c1 {
    %mk = memref.load %mask[%i] : memref<4xindex>
    %long = arith.cmpi ne, %mk, %c0 : index
    %s = scf.if %long -> (f64) {
      %i1 = arith.addi %i, %c1 : index
      %i2 = arith.addi %i, %c2 : index
      %lo = memref.load %p[%i1] : memref<5xindex>
      %hi = memref.load %p[%i2] : memref<5xindex>
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
func.func @branch_oob_grad(%p: memref<5xindex>, %mask: memref<4xindex>, %x: memref<20xf64>, %d_x: memref<20xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) {
  enzyme.autodiff @branch_oob(%p, %mask, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<4xindex>, memref<20xf64>, memref<20xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
