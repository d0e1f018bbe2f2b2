// matdescent, preset small (R=6, C=8).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/matdescent.py, not this file.
func.func @matdescent(%M: memref<6x8xf64>, %v: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %start = arith.constant 1.0 : f64
  %out = memref.alloca() : memref<6xf64>
  scf.for %i = %c0 to %c6 step %c1 {
    %dot = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
      %m = memref.load %M[%i, %j] : memref<6x8xf64>
      %v_j = memref.load %v[%j] : memref<8xf64>
      %mv = arith.mulf %m, %v_j : f64
      %next = arith.addf %acc, %mv : f64
      scf.yield %next : f64
    }
    memref.store %dot, %out[%i] : memref<6xf64>
  }
  %sum = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %start) -> (f64) {
    %o = memref.load %out[%i] : memref<6xf64>
    %twice = arith.addf %o, %o : f64
    %next = arith.mulf %acc, %twice : f64
    scf.yield %next : f64
  }
  return %sum : f64
}

func.func @matdescent_grad(%M: memref<6x8xf64>, %v: memref<8xf64>, %d_v: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @matdescent(%M, %v, %d_v, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<6x8xf64>, memref<8xf64>, memref<8xf64>, f64) -> f64
  return %r : f64
}
