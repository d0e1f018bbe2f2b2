// logsum, preset artifact (N=10000).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/logsum.py, not this file.
func.func @logsum(%x: memref<10000xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10000 = arith.constant 10000 : index
  %one = arith.constant 1.0 : f64
  %A = memref.load %x[%c0] : memref<10000xf64>
  %sema = scf.for %i = %c0 to %c10000 step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<10000xf64>
    %d = arith.subf %xi, %A : f64
    %e = math.exp %d : f64
    %next = arith.mulf %acc, %e : f64
    scf.yield %next : f64
  }
  %log = math.log %sema : f64
  %r = arith.addf %log, %A : f64
  return %r : f64
}

func.func @logsum_grad(%x: memref<10000xf64>, %d_x: memref<10000xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logsum(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<10000xf64>, memref<10000xf64>, f64) -> f64
  return %r : f64
}
