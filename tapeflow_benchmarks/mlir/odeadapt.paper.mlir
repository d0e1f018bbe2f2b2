// odeadapt, preset paper (D=64, T10=40).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/odeadapt.py, not this file.
func.func @odeadapt(%a: memref<64xf64>, %b: memref<64xf64>, %y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %nine = arith.constant 0.9 : f64
  %fmin = arith.constant 0.2 : f64
  %fmax = arith.constant 5.0 : f64
  %tol = arith.constant 0.0001 : f64
  %floor = arith.constant 1.0e-30 : f64
  %tend = arith.constant 4.0 : f64
  %h0 = arith.constant 0.05 : f64
  %dn = arith.constant 64.0 : f64
  %res:3 = scf.while (%t = %zero, %h = %h0, %k = %c0) : (f64, f64, index) -> (f64, f64, index) {
    %more = arith.cmpi slt, %k, %c256 : index
    %open = arith.cmpf olt, %t, %tend : f64
    %go = arith.andi %more, %open : i1
    scf.condition(%go) %t, %h, %k : f64, f64, index
  } do {
  ^bb0(%t: f64, %h: f64, %k: index):
    %acc = scf.for %i_e = %c0 to %c64 step %c1 iter_args(%sq = %zero) -> (f64) {
      %ai_e = memref.load %a[%i_e] : memref<64xf64>
          %bi_e = memref.load %b[%i_e] : memref<64xf64>
          %yi_e = memref.load %y[%i_e] : memref<64xf64>
          %y2_e = arith.mulf %yi_e, %yi_e : f64
          %y3_e = arith.mulf %y2_e, %yi_e : f64
          %ay_e = arith.mulf %ai_e, %y3_e : f64
          %k1_e = arith.subf %bi_e, %ay_e : f64
          %hk_e = arith.mulf %h, %k1_e : f64
          %yt_e = arith.addf %yi_e, %hk_e : f64
          %z2_e = arith.mulf %yt_e, %yt_e : f64
          %z3_e = arith.mulf %z2_e, %yt_e : f64
          %az_e = arith.mulf %ai_e, %z3_e : f64
          %k2_e = arith.subf %bi_e, %az_e : f64
      %dk = arith.subf %k2_e, %k1_e : f64
      %dk2 = arith.mulf %dk, %dk : f64
      %next = arith.addf %sq, %dk2 : f64
      scf.yield %next : f64
    }
    %mean = arith.divf %acc, %dn : f64
    %rms = math.sqrt %mean : f64
    %hh = arith.mulf %h, %half : f64
    %est = arith.mulf %hh, %rms : f64
    %err = arith.maximumf %est, %floor : f64
    %ok = arith.cmpf ole, %err, %tol : f64
    scf.for %i_u = %c0 to %c64 step %c1 {
      %ai_u = memref.load %a[%i_u] : memref<64xf64>
          %bi_u = memref.load %b[%i_u] : memref<64xf64>
          %yi_u = memref.load %y[%i_u] : memref<64xf64>
          %y2_u = arith.mulf %yi_u, %yi_u : f64
          %y3_u = arith.mulf %y2_u, %yi_u : f64
          %ay_u = arith.mulf %ai_u, %y3_u : f64
          %k1_u = arith.subf %bi_u, %ay_u : f64
          %hk_u = arith.mulf %h, %k1_u : f64
          %yt_u = arith.addf %yi_u, %hk_u : f64
          %z2_u = arith.mulf %yt_u, %yt_u : f64
          %z3_u = arith.mulf %z2_u, %yt_u : f64
          %az_u = arith.mulf %ai_u, %z3_u : f64
          %k2_u = arith.subf %bi_u, %az_u : f64
      %ks = arith.addf %k1_u, %k2_u : f64
      %inc = arith.mulf %hh, %ks : f64
      %yn = arith.addf %yi_u, %inc : f64
      %yo = arith.select %ok, %yn, %yi_u : f64
      memref.store %yo, %y[%i_u] : memref<64xf64>
    }
    %tn = arith.addf %t, %h : f64
    %t2 = arith.select %ok, %tn, %t : f64
    %ratio = arith.divf %tol, %err : f64
    %root = math.sqrt %ratio : f64
    %fac0 = arith.mulf %nine, %root : f64
    %fac1 = arith.maximumf %fac0, %fmin : f64
    %fac = arith.minimumf %fac1, %fmax : f64
    %hn = arith.mulf %h, %fac : f64
    %left = arith.subf %tend, %t2 : f64
    %h2 = arith.minimumf %hn, %left : f64
    %k2 = arith.addi %k, %c1 : index
    scf.yield %t2, %h2, %k2 : f64, f64, index
  }
  return
}

func.func @odeadapt_grad(%a: memref<64xf64>, %d_a: memref<64xf64>, %b: memref<64xf64>, %d_b: memref<64xf64>, %y: memref<64xf64>, %d_y: memref<64xf64>) {
  enzyme.autodiff @odeadapt(%a, %d_a, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<64xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>) -> ()
  return
}
