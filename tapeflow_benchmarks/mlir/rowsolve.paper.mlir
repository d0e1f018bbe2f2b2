// rowsolve, preset paper (R=128, C=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rowsolve.py, not this file.
func.func @rowsolve(%a: memref<128x32xf64>, %b: memref<128xf64>, %t: memref<128xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %tol = arith.constant 1.0e-12 : f64
  scf.for %r = %c0 to %c128 step %c1 {
    %br = memref.load %b[%r] : memref<128xf64>
    %res = scf.while (%x = %zero) : (f64) -> f64 {
      %f, %g = scf.for %j = %c0 to %c32 step %c1
          iter_args(%fa = %zero, %ga = %zero) -> (f64, f64) {
        %av = memref.load %a[%r, %j] : memref<128x32xf64>
        %z = arith.mulf %x, %av : f64
        %th = math.tanh %z : f64
        %t2 = arith.mulf %th, %th : f64
        %om = arith.subf %one, %t2 : f64
        %dg = arith.mulf %av, %om : f64
        %fn = arith.addf %fa, %th : f64
        %gn = arith.addf %ga, %dg : f64
        scf.yield %fn, %gn : f64, f64
      }
      %fr = arith.subf %f, %br : f64
      %step = arith.divf %fr, %g : f64
      %nx = arith.subf %x, %step : f64
      %as = math.absf %step : f64
      %c = arith.cmpf ogt, %as, %tol : f64
      scf.condition(%c) %nx : f64
    } do {
    ^bb0(%x2: f64):
      scf.yield %x2 : f64
    }
    memref.store %res, %t[%r] : memref<128xf64>
  }
  return
}

func.func @rowsolve_grad(%a: memref<128x32xf64>, %d_a: memref<128x32xf64>, %b: memref<128xf64>, %d_b: memref<128xf64>, %t: memref<128xf64>, %d_t: memref<128xf64>) {
  enzyme.autodiff @rowsolve(%a, %d_a, %b, %d_b, %t, %d_t) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<128x32xf64>, memref<128x32xf64>, memref<128xf64>, memref<128xf64>, memref<128xf64>, memref<128xf64>) -> ()
  return
}
