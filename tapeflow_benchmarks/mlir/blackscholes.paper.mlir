// blackscholes, preset paper (NB=1024, n=1024).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/blackscholes.py, not this file.
func.func @blackscholes(%S: memref<1024xf64>, %K: memref<1024xf64>, %r: memref<1024xf64>, %v: memref<1024xf64>, %T: memref<1024xf64>, %price: memref<1024xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %mhalf = arith.constant -0.5 : f64
  %p = arith.constant 0.2316419 : f64
  %invsqrt2pi = arith.constant 0.3989422804014327 : f64
  %b1 = arith.constant 0.31938153 : f64
  %b2 = arith.constant -0.356563782 : f64
  %b3 = arith.constant 1.781477937 : f64
  %b4 = arith.constant -1.821255978 : f64
  %b5 = arith.constant 1.330274429 : f64
  scf.for %i = %c0 to %n step %c1 {
    %Si = memref.load %S[%i] : memref<1024xf64>
    %Ki = memref.load %K[%i] : memref<1024xf64>
    %ri = memref.load %r[%i] : memref<1024xf64>
    %vi = memref.load %v[%i] : memref<1024xf64>
    %Ti = memref.load %T[%i] : memref<1024xf64>
    %sq = math.sqrt %Ti : f64
    %ratio = arith.divf %Si, %Ki : f64
    %lg = math.log %ratio : f64
    %vv = arith.mulf %vi, %vi : f64
    %pw = arith.mulf %vv, %half : f64
    %d1a = arith.addf %ri, %pw : f64
    %d1b = arith.mulf %d1a, %Ti : f64
    %d1c = arith.addf %d1b, %lg : f64
    %den = arith.mulf %vi, %sq : f64
    %d1 = arith.divf %d1c, %den : f64
    %d2 = arith.subf %d1, %den : f64
    %n1_neg = arith.cmpf olt, %d1, %zero : f64
    %n1_m = arith.negf %d1 : f64
    %n1_a = arith.select %n1_neg, %n1_m, %d1 : f64
    %n1_aa = arith.mulf %n1_a, %n1_a : f64
    %n1_h = arith.mulf %mhalf, %n1_aa : f64
    %n1_e = math.exp %n1_h : f64
    %n1_np = arith.mulf %n1_e, %invsqrt2pi : f64
    %n1_pa = arith.mulf %p, %n1_a : f64
    %n1_d = arith.addf %one, %n1_pa : f64
    %n1_k = arith.divf %one, %n1_d : f64
    %n1_k2 = arith.mulf %n1_k, %n1_k : f64
    %n1_k3 = arith.mulf %n1_k2, %n1_k : f64
    %n1_k4 = arith.mulf %n1_k3, %n1_k : f64
    %n1_k5 = arith.mulf %n1_k4, %n1_k : f64
    %n1_l1 = arith.mulf %n1_k, %b1 : f64
    %n1_l2 = arith.mulf %n1_k2, %b2 : f64
    %n1_l3 = arith.mulf %n1_k3, %b3 : f64
    %n1_s2 = arith.addf %n1_l2, %n1_l3 : f64
    %n1_l4 = arith.mulf %n1_k4, %b4 : f64
    %n1_s3 = arith.addf %n1_s2, %n1_l4 : f64
    %n1_l5 = arith.mulf %n1_k5, %b5 : f64
    %n1_s4 = arith.addf %n1_s3, %n1_l5 : f64
    %n1_s5 = arith.addf %n1_s4, %n1_l1 : f64
    %n1_loc = arith.mulf %n1_s5, %n1_np : f64
    %n1_c = arith.subf %one, %n1_loc : f64
    %n1_flip = arith.subf %one, %n1_c : f64
    %n1_out = arith.select %n1_neg, %n1_flip, %n1_c : f64
    %n2_neg = arith.cmpf olt, %d2, %zero : f64
    %n2_m = arith.negf %d2 : f64
    %n2_a = arith.select %n2_neg, %n2_m, %d2 : f64
    %n2_aa = arith.mulf %n2_a, %n2_a : f64
    %n2_h = arith.mulf %mhalf, %n2_aa : f64
    %n2_e = math.exp %n2_h : f64
    %n2_np = arith.mulf %n2_e, %invsqrt2pi : f64
    %n2_pa = arith.mulf %p, %n2_a : f64
    %n2_d = arith.addf %one, %n2_pa : f64
    %n2_k = arith.divf %one, %n2_d : f64
    %n2_k2 = arith.mulf %n2_k, %n2_k : f64
    %n2_k3 = arith.mulf %n2_k2, %n2_k : f64
    %n2_k4 = arith.mulf %n2_k3, %n2_k : f64
    %n2_k5 = arith.mulf %n2_k4, %n2_k : f64
    %n2_l1 = arith.mulf %n2_k, %b1 : f64
    %n2_l2 = arith.mulf %n2_k2, %b2 : f64
    %n2_l3 = arith.mulf %n2_k3, %b3 : f64
    %n2_s2 = arith.addf %n2_l2, %n2_l3 : f64
    %n2_l4 = arith.mulf %n2_k4, %b4 : f64
    %n2_s3 = arith.addf %n2_s2, %n2_l4 : f64
    %n2_l5 = arith.mulf %n2_k5, %b5 : f64
    %n2_s4 = arith.addf %n2_s3, %n2_l5 : f64
    %n2_s5 = arith.addf %n2_s4, %n2_l1 : f64
    %n2_loc = arith.mulf %n2_s5, %n2_np : f64
    %n2_c = arith.subf %one, %n2_loc : f64
    %n2_flip = arith.subf %one, %n2_c : f64
    %n2_out = arith.select %n2_neg, %n2_flip, %n2_c : f64
    %rt = arith.mulf %ri, %Ti : f64
    %mrt = arith.negf %rt : f64
    %disc = math.exp %mrt : f64
    %fv = arith.mulf %Ki, %disc : f64
    %sn = arith.mulf %Si, %n1_out : f64
    %fn = arith.mulf %fv, %n2_out : f64
    %pr = arith.subf %sn, %fn : f64
    memref.store %pr, %price[%i] : memref<1024xf64>
  }
  return
}

func.func @blackscholes_grad(%S: memref<1024xf64>, %d_S: memref<1024xf64>, %K: memref<1024xf64>, %d_K: memref<1024xf64>, %r: memref<1024xf64>, %d_r: memref<1024xf64>, %v: memref<1024xf64>, %d_v: memref<1024xf64>, %T: memref<1024xf64>, %d_T: memref<1024xf64>, %price: memref<1024xf64>, %d_price: memref<1024xf64>, %n: index) {
  enzyme.autodiff @blackscholes(%S, %d_S, %K, %d_K, %r, %d_r, %v, %d_v, %T, %d_T, %price, %d_price, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, memref<1024xf64>, index) -> ()
  return
}
