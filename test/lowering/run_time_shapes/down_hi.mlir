// Each CSR row walked backwards, `j = hi - 1 - k` for `k < hi - lo` (a back
// substitution's order), a store per entry.
func.func @down_hi(%p: memref<5xindex>, %x: memref<20xf64>, %y: memref<20xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64

  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %p[%i] : memref<5xindex>
    %hi = memref.load %p[%i1] : memref<5xindex>
    %n = arith.subi %hi, %lo : index
    %hm = arith.subi %hi, %c1 : index
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (f64) {
      %j = arith.subi %hm, %k : index
      %u = memref.load %x[%j] : memref<20xf64>
      %th = math.tanh %u : f64
      %q = arith.mulf %a, %th : f64
      %q2 = arith.addf %q, %th : f64
      memref.store %q2, %y[%j] : memref<20xf64>
      scf.yield %q2 : f64
    }
  }
  return
}
func.func @down_hi_grad(%p: memref<5xindex>, %x: memref<20xf64>, %d_x: memref<20xf64>, %y: memref<20xf64>, %d_y: memref<20xf64>) {
  enzyme.autodiff @down_hi(%p, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<20xf64>, memref<20xf64>, memref<20xf64>, memref<20xf64>) -> ()
  return
}
