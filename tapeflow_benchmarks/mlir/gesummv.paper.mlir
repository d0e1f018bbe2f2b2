// gesummv, preset paper (N=128).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gesummv.py, not this file.
func.func @gesummv(%A: memref<128x128xf64>, %B: memref<128x128xf64>, %x: memref<128xf64>, %y: memref<128xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f64
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c128 step %c1 {
    %t, %u = scf.for %j = %c0 to %c128 step %c1
        iter_args(%ta = %zero, %ua = %zero) -> (f64, f64) {
      %a = memref.load %A[%i, %j] : memref<128x128xf64>
      %b = memref.load %B[%i, %j] : memref<128x128xf64>
      %xj = memref.load %x[%j] : memref<128xf64>
      %pa = arith.mulf %a, %xj : f64
      %pb = arith.mulf %b, %xj : f64
      %tn = arith.addf %pa, %ta : f64
      %un = arith.addf %pb, %ua : f64
      scf.yield %tn, %un : f64, f64
    }
    %at = arith.mulf %alpha, %t : f64
    %bu = arith.mulf %beta, %u : f64
    %z = arith.addf %at, %bu : f64
    %o = math.tanh %z : f64
    memref.store %o, %y[%i] : memref<128xf64>
  }
  return
}

func.func @gesummv_grad(%A: memref<128x128xf64>, %d_A: memref<128x128xf64>, %B: memref<128x128xf64>, %d_B: memref<128x128xf64>, %x: memref<128xf64>, %d_x: memref<128xf64>, %y: memref<128xf64>, %d_y: memref<128xf64>) {
  enzyme.autodiff @gesummv(%A, %d_A, %B, %d_B, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<128x128xf64>, memref<128x128xf64>, memref<128x128xf64>, memref<128x128xf64>, memref<128xf64>, memref<128xf64>, memref<128xf64>, memref<128xf64>) -> ()
  return
}
