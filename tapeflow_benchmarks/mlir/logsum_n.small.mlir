// logsum_n, preset small (N=16, n=13).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/logsum_n.py, not this file.
func.func @logsum_n(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %A = memref.load %x[%c0] : memref<?xf64>
  %sema = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<?xf64>
    %d = arith.subf %xi, %A : f64
    %e = math.exp %d : f64
    %next = arith.mulf %acc, %e : f64
    scf.yield %next : f64
  }
  %log = math.log %sema : f64
  %r = arith.addf %log, %A : f64
  return %r : f64
}

func.func @logsum_n_grad(%x: memref<?xf64>, %d_x: memref<?xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logsum_n(%x, %d_x, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<?xf64>, memref<?xf64>, index, f64) -> f64
  return %r : f64
}
