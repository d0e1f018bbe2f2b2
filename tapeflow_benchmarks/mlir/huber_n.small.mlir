// huber_n, preset small (N=6, n=5, K=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/huber_n.py, not this file.
func.func @huber_n(%X: memref<?x?xf64>, %t: memref<?xf64>, %w: memref<3xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %delta = arith.constant 1.0 : f64
  %hdelta = arith.constant 0.5 : f64
  %loss = scf.for %i = %c0 to %n step %c1 iter_args(%tot = %zero) -> (f64) {
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %X[%i, %k] : memref<?x?xf64>
      %wv = memref.load %w[%k] : memref<3xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %ti = memref.load %t[%i] : memref<?xf64>
    %r = arith.subf %s, %ti : f64
    %nr = arith.subf %zero, %r : f64
    %neg = arith.cmpf olt, %r, %zero : f64
    %a = arith.select %neg, %nr, %r : f64
    %rr = arith.mulf %r, %r : f64
    %quad = arith.mulf %half, %rr : f64
    %ad = arith.subf %a, %hdelta : f64
    %lin = arith.mulf %delta, %ad : f64
    %small = arith.cmpf ole, %a, %delta : f64
    %h = arith.select %small, %quad, %lin : f64
    %sum = arith.addf %tot, %h : f64
    scf.yield %sum : f64
  }
  return %loss : f64
}

func.func @huber_n_grad(%X: memref<?x?xf64>, %d_X: memref<?x?xf64>, %t: memref<?xf64>, %d_t: memref<?xf64>, %w: memref<3xf64>, %d_w: memref<3xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @huber_n(%X, %d_X, %t, %d_t, %w, %d_w, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, memref<?xf64>, memref<3xf64>, memref<3xf64>, index, f64) -> f64
  return %r : f64
}
