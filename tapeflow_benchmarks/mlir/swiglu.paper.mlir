// swiglu, preset paper (TB=6, b=6, D=16, H=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/swiglu.py, not this file.
func.func @swiglu(%X: memref<6x16xf64>, %g: memref<16xf64>, %W1: memref<32x16xf64>, %W3: memref<32x16xf64>, %W2: memref<16x32xf64>, %Y: memref<6x16xf64>, %xn: memref<16xf64>, %hid: memref<32xf64>, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %eps = arith.constant 1.0e-05 : f64
  %invd = arith.constant 0.0625 : f64
  scf.for %t = %c0 to %b step %c1 {
    %ss = scf.for %d = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %X[%t, %d] : memref<6x16xf64>
      %sq = arith.mulf %xv, %xv : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %ms = arith.mulf %ss, %invd : f64
    %mse = arith.addf %ms, %eps : f64
    %rms = math.sqrt %mse : f64
    %r = arith.divf %one, %rms : f64
    scf.for %d = %c0 to %c16 step %c1 {
      %xv = memref.load %X[%t, %d] : memref<6x16xf64>
      %gv = memref.load %g[%d] : memref<16xf64>
      %xr = arith.mulf %xv, %r : f64
      %xg = arith.mulf %xr, %gv : f64
      memref.store %xg, %xn[%d] : memref<16xf64>
    }
    scf.for %hh = %c0 to %c32 step %c1 {
      %a, %c = scf.for %d = %c0 to %c16 step %c1
          iter_args(%aacc = %zero, %cacc = %zero) -> (f64, f64) {
        %xv = memref.load %xn[%d] : memref<16xf64>
        %w1 = memref.load %W1[%hh, %d] : memref<32x16xf64>
        %w3 = memref.load %W3[%hh, %d] : memref<32x16xf64>
        %p1 = arith.mulf %w1, %xv : f64
        %p3 = arith.mulf %w3, %xv : f64
        %an = arith.addf %aacc, %p1 : f64
        %cn = arith.addf %cacc, %p3 : f64
        scf.yield %an, %cn : f64, f64
      }
      %na = arith.negf %a : f64
      %e = math.exp %na : f64
      %den = arith.addf %one, %e : f64
      %silu = arith.divf %a, %den : f64
      %gated = arith.mulf %silu, %c : f64
      memref.store %gated, %hid[%hh] : memref<32xf64>
    }
    scf.for %o = %c0 to %c16 step %c1 {
      %x0 = memref.load %X[%t, %o] : memref<6x16xf64>
      %y = scf.for %hh = %c0 to %c32 step %c1 iter_args(%acc = %x0) -> (f64) {
        %w2 = memref.load %W2[%o, %hh] : memref<16x32xf64>
        %hv = memref.load %hid[%hh] : memref<32xf64>
        %p = arith.mulf %w2, %hv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %y, %Y[%t, %o] : memref<6x16xf64>
    }
  }
  return
}

func.func @swiglu_grad(%X: memref<6x16xf64>, %d_X: memref<6x16xf64>, %g: memref<16xf64>, %d_g: memref<16xf64>, %W1: memref<32x16xf64>, %d_W1: memref<32x16xf64>, %W3: memref<32x16xf64>, %d_W3: memref<32x16xf64>, %W2: memref<16x32xf64>, %d_W2: memref<16x32xf64>, %Y: memref<6x16xf64>, %d_Y: memref<6x16xf64>, %xn: memref<16xf64>, %d_xn: memref<16xf64>, %hid: memref<32xf64>, %d_hid: memref<32xf64>, %b: index) {
  enzyme.autodiff @swiglu(%X, %d_X, %g, %d_g, %W1, %d_W1, %W3, %d_W3, %W2, %d_W2, %Y, %d_Y, %xn, %d_xn, %hid, %d_hid, %b) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<6x16xf64>, memref<6x16xf64>, memref<16xf64>, memref<16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<16x32xf64>, memref<16x32xf64>, memref<6x16xf64>, memref<6x16xf64>, memref<16xf64>, memref<16xf64>, memref<32xf64>, memref<32xf64>, index) -> ()
  return
}
