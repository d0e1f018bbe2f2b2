// lngelu, preset paper (B=32, K=16, H=32, O=8).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/lngelu.py, not this file.
func.func @lngelu(%x: memref<32x16xf64>, %W1: memref<32x16xf64>, %b1: memref<32xf64>, %W2: memref<8x32xf64>, %b2: memref<8xf64>, %h: memref<32xf64>, %g: memref<32xf64>, %y: memref<32x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %nh = arith.constant 32.0 : f64
  %eps = arith.constant 1.0e-05 : f64
  %gk = arith.constant 0.7978845608028654 : f64
  %gc = arith.constant 0.044715 : f64
  scf.for %b = %c0 to %c32 step %c1 {
    scf.for %i = %c0 to %c32 step %c1 {
      %bi = memref.load %b1[%i] : memref<32xf64>
      %s = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %bi) -> (f64) {
        %w = memref.load %W1[%i, %k] : memref<32x16xf64>
        %xv = memref.load %x[%b, %k] : memref<32x16xf64>
        %p = arith.mulf %w, %xv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %s, %h[%i] : memref<32xf64>
    }
    %sum = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f64) {
      %hv = memref.load %h[%i] : memref<32xf64>
      %next = arith.addf %acc, %hv : f64
      scf.yield %next : f64
    }
    %mu = arith.divf %sum, %nh : f64
    %sq = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f64) {
      %hv = memref.load %h[%i] : memref<32xf64>
      %d = arith.subf %hv, %mu : f64
      %dd = arith.mulf %d, %d : f64
      %next = arith.addf %acc, %dd : f64
      scf.yield %next : f64
    }
    %var = arith.divf %sq, %nh : f64
    %ve = arith.addf %var, %eps : f64
    %sd = math.sqrt %ve : f64
    %r = arith.divf %one, %sd : f64
    scf.for %i = %c0 to %c32 step %c1 {
      %hv = memref.load %h[%i] : memref<32xf64>
      %d = arith.subf %hv, %mu : f64
      %n = arith.mulf %d, %r : f64
      %n2 = arith.mulf %n, %n : f64
      %n3 = arith.mulf %n2, %n : f64
      %cn3 = arith.mulf %gc, %n3 : f64
      %u = arith.addf %n, %cn3 : f64
      %v = arith.mulf %gk, %u : f64
      %th = math.tanh %v : f64
      %op = arith.addf %one, %th : f64
      %hn = arith.mulf %half, %n : f64
      %gv = arith.mulf %hn, %op : f64
      memref.store %gv, %g[%i] : memref<32xf64>
    }
    scf.for %o = %c0 to %c8 step %c1 {
      %bo = memref.load %b2[%o] : memref<8xf64>
      %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %bo) -> (f64) {
        %w = memref.load %W2[%o, %i] : memref<8x32xf64>
        %gv = memref.load %g[%i] : memref<32xf64>
        %p = arith.mulf %w, %gv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %s, %y[%b, %o] : memref<32x8xf64>
    }
  }
  return
}

func.func @lngelu_grad(%x: memref<32x16xf64>, %d_x: memref<32x16xf64>, %W1: memref<32x16xf64>, %d_W1: memref<32x16xf64>, %b1: memref<32xf64>, %d_b1: memref<32xf64>, %W2: memref<8x32xf64>, %d_W2: memref<8x32xf64>, %b2: memref<8xf64>, %d_b2: memref<8xf64>, %h: memref<32xf64>, %d_h: memref<32xf64>, %g: memref<32xf64>, %d_g: memref<32xf64>, %y: memref<32x8xf64>, %d_y: memref<32x8xf64>) {
  enzyme.autodiff @lngelu(%x, %d_x, %W1, %d_W1, %b1, %d_b1, %W2, %d_W2, %b2, %d_b2, %h, %d_h, %g, %d_g, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<32xf64>, memref<32xf64>, memref<8x32xf64>, memref<8x32xf64>, memref<8xf64>, memref<8xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32x8xf64>, memref<32x8xf64>) -> ()
  return
}
