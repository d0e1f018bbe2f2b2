// logreg, preset paper (N=256, K=8).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/logreg.py, not this file.
func.func @logreg(%X: memref<256x8xf64>, %t: memref<256xf64>, %w: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %loss = scf.for %i = %c0 to %c256 step %c1 iter_args(%l = %zero) -> (f64) {
    %z = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
      %wv = memref.load %w[%k] : memref<8xf64>
      %xv = memref.load %X[%i, %k] : memref<256x8xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %ti = memref.load %t[%i] : memref<256xf64>
    %m = arith.mulf %ti, %z : f64
    %neg = arith.negf %m : f64
    %e = math.exp %neg : f64
    %a = arith.addf %one, %e : f64
    %lg = math.log %a : f64
    %nl = arith.addf %l, %lg : f64
    scf.yield %nl : f64
  }
  return %loss : f64
}

func.func @logreg_grad(%X: memref<256x8xf64>, %d_X: memref<256x8xf64>, %t: memref<256xf64>, %w: memref<8xf64>, %d_w: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logreg(%X, %d_X, %t, %w, %d_w, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<256x8xf64>, memref<256x8xf64>, memref<256xf64>, memref<8xf64>, memref<8xf64>, f64) -> f64
  return %r : f64
}
