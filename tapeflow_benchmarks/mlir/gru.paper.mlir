// gru, preset paper (T=24, H=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gru.py, not this file.
func.func @gru(%Wr: memref<16x16xf64>, %Wz: memref<16x16xf64>, %Wn: memref<16x16xf64>, %U: memref<3x16xf64>, %x: memref<24xf64>, %h: memref<25x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %t = %c0 to %c24 step %c1 {
    %xt = memref.load %x[%t] : memref<24xf64>
    %t1 = arith.addi %t, %c1 : index
    scf.for %i = %c0 to %c16 step %c1 {
      %ur = memref.load %U[%c0, %i] : memref<3x16xf64>
      %uz = memref.load %U[%c1, %i] : memref<3x16xf64>
      %un = memref.load %U[%c2, %i] : memref<3x16xf64>
      %inr = arith.mulf %ur, %xt : f64
      %inz = arith.mulf %uz, %xt : f64
      %sr, %sz, %sn = scf.for %j = %c0 to %c16 step %c1
          iter_args(%ar = %inr, %az = %inz, %an = %zero) -> (f64, f64, f64) {
        %hv = memref.load %h[%t, %j] : memref<25x16xf64>
        %wr = memref.load %Wr[%i, %j] : memref<16x16xf64>
        %wz = memref.load %Wz[%i, %j] : memref<16x16xf64>
        %wn = memref.load %Wn[%i, %j] : memref<16x16xf64>
        %pr = arith.mulf %wr, %hv : f64
        %pz = arith.mulf %wz, %hv : f64
        %pn = arith.mulf %wn, %hv : f64
        %nr = arith.addf %ar, %pr : f64
        %nz = arith.addf %az, %pz : f64
        %nn = arith.addf %an, %pn : f64
        scf.yield %nr, %nz, %nn : f64, f64, f64
      }
      %r_n = arith.negf %sr : f64
      %r_e = math.exp %r_n : f64
      %r_d = arith.addf %one, %r_e : f64
      %r = arith.divf %one, %r_d : f64
      %z_n = arith.negf %sz : f64
      %z_e = math.exp %z_n : f64
      %z_d = arith.addf %one, %z_e : f64
      %z = arith.divf %one, %z_d : f64
      %inn = arith.mulf %un, %xt : f64
      %rn = arith.mulf %r, %sn : f64
      %an2 = arith.addf %inn, %rn : f64
      %n = math.tanh %an2 : f64
      %hold = memref.load %h[%t, %i] : memref<25x16xf64>
      %omz = arith.subf %one, %z : f64
      %keep = arith.mulf %z, %hold : f64
      %new = arith.mulf %omz, %n : f64
      %hnew = arith.addf %new, %keep : f64
      memref.store %hnew, %h[%t1, %i] : memref<25x16xf64>
    }
  }
  return
}

func.func @gru_grad(%Wr: memref<16x16xf64>, %d_Wr: memref<16x16xf64>, %Wz: memref<16x16xf64>, %d_Wz: memref<16x16xf64>, %Wn: memref<16x16xf64>, %d_Wn: memref<16x16xf64>, %U: memref<3x16xf64>, %d_U: memref<3x16xf64>, %x: memref<24xf64>, %d_x: memref<24xf64>, %h: memref<25x16xf64>, %d_h: memref<25x16xf64>) {
  enzyme.autodiff @gru(%Wr, %d_Wr, %Wz, %d_Wz, %Wn, %d_Wn, %U, %d_U, %x, %d_x, %h, %d_h) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<16x16xf64>, memref<16x16xf64>, memref<16x16xf64>, memref<16x16xf64>, memref<16x16xf64>, memref<16x16xf64>, memref<3x16xf64>, memref<3x16xf64>, memref<24xf64>, memref<24xf64>, memref<25x16xf64>, memref<25x16xf64>) -> ()
  return
}
