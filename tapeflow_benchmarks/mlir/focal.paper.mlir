// focal, preset paper (B=1024, C=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/focal.py, not this file.
func.func @focal(%z: memref<1024x4xf64>, %t: memref<1024x4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %lowest = arith.constant -1.0e300 : f64
  %loss = scf.for %b = %c0 to %c1024 step %c1 iter_args(%l = %zero) -> (f64) {
    %m = scf.for %c = %c0 to %c4 step %c1 iter_args(%mk = %lowest) -> (f64) {
      %zv = memref.load %z[%b, %c] : memref<1024x4xf64>
      %mn = arith.maximumf %mk, %zv : f64
      scf.yield %mn : f64
    }
    %s = scf.for %c = %c0 to %c4 step %c1 iter_args(%sk = %zero) -> (f64) {
      %zv = memref.load %z[%b, %c] : memref<1024x4xf64>
      %d = arith.subf %zv, %m : f64
      %e = math.exp %d : f64
      %sn = arith.addf %sk, %e : f64
      scf.yield %sn : f64
    }
    %ls = math.log %s : f64
    %f = scf.for %c = %c0 to %c4 step %c1 iter_args(%fk = %l) -> (f64) {
      %zv = memref.load %z[%b, %c] : memref<1024x4xf64>
      %d = arith.subf %zv, %m : f64
      %lp = arith.subf %d, %ls : f64
      %p = math.exp %lp : f64
      %q = arith.subf %one, %p : f64
      %qq = arith.mulf %q, %q : f64
      %tv = memref.load %t[%b, %c] : memref<1024x4xf64>
      %w = arith.mulf %tv, %qq : f64
      %term = arith.mulf %w, %lp : f64
      %fn = arith.subf %fk, %term : f64
      scf.yield %fn : f64
    }
    scf.yield %f : f64
  }
  return %loss : f64
}

func.func @focal_grad(%z: memref<1024x4xf64>, %d_z: memref<1024x4xf64>, %t: memref<1024x4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @focal(%z, %d_z, %t, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<1024x4xf64>, memref<1024x4xf64>, memref<1024x4xf64>, f64) -> f64
  return %r : f64
}
