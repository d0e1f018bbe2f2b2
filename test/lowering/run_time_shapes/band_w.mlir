// A band of run-time half-width `w` over a run-time length `n`, clamped at both
// ends, `max(i - w, 0) .. min(i + w + 1, n)` (Longformer's sliding window with
// its width an argument), and a per-row value after it.
func.func @band_w(%x: memref<?xf64>, %y: memref<?xf64>, %n: index, %w: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64

  scf.for %i = %c0 to %n step %c1 {
    %im = arith.subi %i, %w : index
    %lo = arith.maxsi %im, %c0 : index
    %ip = arith.addi %i, %w : index
    %ip1 = arith.addi %ip, %c1 : index
    %hi = arith.minsi %ip1, %n : index
    %s = scf.for %j = %lo to %hi step %c1 iter_args(%a = %zero) -> (f64) {
      %u = memref.load %x[%j] : memref<?xf64>
      %th = math.tanh %u : f64
      %xi = memref.load %x[%i] : memref<?xf64>
      %p = arith.mulf %th, %xi : f64
      %q = arith.addf %a, %p : f64
      scf.yield %q : f64
    }
    %e = math.exp %s : f64
    memref.store %e, %y[%i] : memref<?xf64>
  }
  return
}
func.func @band_w_grad(%x: memref<?xf64>, %d_x: memref<?xf64>, %y: memref<?xf64>, %d_y: memref<?xf64>, %n: index, %w: index) {
  enzyme.autodiff @band_w(%x, %d_x, %y, %d_y, %n, %w) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, index, index) -> ()
  return
}
