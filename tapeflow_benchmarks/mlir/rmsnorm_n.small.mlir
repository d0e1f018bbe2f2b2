// rmsnorm_n, preset small (N=5, n=4, C=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rmsnorm_n.py, not this file.
func.func @rmsnorm_n(%x: memref<?x?xf64>, %g: memref<6xf64>, %y: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %cols = arith.constant 6.0 : f64
  %eps = arith.constant 1.0e-06 : f64
  scf.for %r = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %x[%r, %j] : memref<?x?xf64>
      %sq = arith.mulf %v, %v : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %ms = arith.divf %s, %cols : f64
    %mse = arith.addf %ms, %eps : f64
    %rms = math.sqrt %mse : f64
    %inv = arith.divf %one, %rms : f64
    scf.for %j = %c0 to %c6 step %c1 {
      %v = memref.load %x[%r, %j] : memref<?x?xf64>
      %gj = memref.load %g[%j] : memref<6xf64>
      %h = arith.mulf %v, %inv : f64
      %o = arith.mulf %h, %gj : f64
      memref.store %o, %y[%r, %j] : memref<?x?xf64>
    }
  }
  return
}

func.func @rmsnorm_n_grad(%x: memref<?x?xf64>, %d_x: memref<?x?xf64>, %g: memref<6xf64>, %d_g: memref<6xf64>, %y: memref<?x?xf64>, %d_y: memref<?x?xf64>, %n: index) {
  enzyme.autodiff @rmsnorm_n(%x, %d_x, %g, %d_g, %y, %d_y, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<6xf64>, memref<6xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}
