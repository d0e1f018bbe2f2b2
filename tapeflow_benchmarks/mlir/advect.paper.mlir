// advect, preset paper (T=24, N=128).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/advect.py, not this file.
func.func @advect(%u: memref<25x128xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c24 = arith.constant 24 : index
  %c126 = arith.constant 126 : index
  %zero = arith.constant 0.0 : f64
  %nu = arith.constant 0.5 : f64
  %k = arith.constant 0.25 : f64
  scf.for %t = %c0 to %c24 step %c1 {
    %t1 = arith.addi %t, %c1 : index
    scf.for %i = %c2 to %c126 step %c1 {
      %im = arith.subi %i, %c1 : index
      %imm = arith.subi %i, %c2 : index
      %ip = arith.addi %i, %c1 : index
      %ul2 = memref.load %u[%t, %imm] : memref<25x128xf64>
      %ul = memref.load %u[%t, %im] : memref<25x128xf64>
      %uc = memref.load %u[%t, %i] : memref<25x128xf64>
      %ur = memref.load %u[%t, %ip] : memref<25x128xf64>
      %dr = arith.subf %ur, %uc : f64
      %dc = arith.subf %uc, %ul : f64
      %dl = arith.subf %ul, %ul2 : f64
      %s1_p = arith.mulf %dr, %dc : f64
          %s1_pos = arith.cmpf ogt, %s1_p, %zero : f64
          %s1_aa = math.absf %dr : f64
          %s1_ab = math.absf %dc : f64
          %s1_lt = arith.cmpf olt, %s1_aa, %s1_ab : f64
          %s1_m = arith.select %s1_lt, %dr, %dc : f64
          %s1 = arith.select %s1_pos, %s1_m, %zero : f64
      %s0_p = arith.mulf %dc, %dl : f64
          %s0_pos = arith.cmpf ogt, %s0_p, %zero : f64
          %s0_aa = math.absf %dc : f64
          %s0_ab = math.absf %dl : f64
          %s0_lt = arith.cmpf olt, %s0_aa, %s0_ab : f64
          %s0_m = arith.select %s0_lt, %dc, %dl : f64
          %s0 = arith.select %s0_pos, %s0_m, %zero : f64
      %ks1 = arith.mulf %k, %s1 : f64
      %ks0 = arith.mulf %k, %s0 : f64
      %f1 = arith.addf %uc, %ks1 : f64
      %f0 = arith.addf %ul, %ks0 : f64
      %df = arith.subf %f1, %f0 : f64
      %step = arith.mulf %nu, %df : f64
      %un = arith.subf %uc, %step : f64
      memref.store %un, %u[%t1, %i] : memref<25x128xf64>
    }
  }
  return
}

func.func @advect_grad(%u: memref<25x128xf64>, %d_u: memref<25x128xf64>) {
  enzyme.autodiff @advect(%u, %d_u) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<25x128xf64>, memref<25x128xf64>) -> ()
  return
}
