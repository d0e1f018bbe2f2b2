// rnn_ragged, preset small (B=3, H=2, E=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rnn_ragged.py, not this file.
func.func @rnn_ragged(%off: memref<4xindex>, %x: memref<11x2xf64>, %W: memref<2x2xf64>, %U: memref<2x2xf64>, %c: memref<2xf64>, %h0: memref<2xf64>, %v: memref<2xf64>, %h: memref<2xf64>, %g: memref<2xf64>, %y: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  scf.for %b = %c0 to %c3 step %c1 {
    %b1 = arith.addi %b, %c1 : index
    %lo = memref.load %off[%b] : memref<4xindex>
    %hi = memref.load %off[%b1] : memref<4xindex>
    scf.for %i = %c0 to %c2 step %c1 {
      %v0 = memref.load %h0[%i] : memref<2xf64>
      memref.store %v0, %h[%i] : memref<2xf64>
    }
    scf.for %t = %lo to %hi step %c1 {
      scf.for %i = %c0 to %c2 step %c1 {
        %ci = memref.load %c[%i] : memref<2xf64>
        %sx = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %ci) -> (f64) {
          %w = memref.load %W[%i, %k] : memref<2x2xf64>
          %xv = memref.load %x[%t, %k] : memref<11x2xf64>
          %p = arith.mulf %w, %xv : f64
          %next = arith.addf %acc, %p : f64
          scf.yield %next : f64
        }
        %sh = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %sx) -> (f64) {
          %u = memref.load %U[%i, %k] : memref<2x2xf64>
          %hk = memref.load %h[%k] : memref<2xf64>
          %p = arith.mulf %u, %hk : f64
          %next = arith.addf %acc, %p : f64
          scf.yield %next : f64
        }
        %th = math.tanh %sh : f64
        memref.store %th, %g[%i] : memref<2xf64>
      }
      scf.for %i = %c0 to %c2 step %c1 {
        %gi = memref.load %g[%i] : memref<2xf64>
        memref.store %gi, %h[%i] : memref<2xf64>
      }
    }
    %z = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
      %vi = memref.load %v[%i] : memref<2xf64>
      %hi2 = memref.load %h[%i] : memref<2xf64>
      %p = arith.mulf %vi, %hi2 : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %tz = math.tanh %z : f64
    memref.store %tz, %y[%b] : memref<3xf64>
  }
  return
}

func.func @rnn_ragged_grad(%off: memref<4xindex>, %x: memref<11x2xf64>, %d_x: memref<11x2xf64>, %W: memref<2x2xf64>, %d_W: memref<2x2xf64>, %U: memref<2x2xf64>, %d_U: memref<2x2xf64>, %c: memref<2xf64>, %d_c: memref<2xf64>, %h0: memref<2xf64>, %d_h0: memref<2xf64>, %v: memref<2xf64>, %d_v: memref<2xf64>, %h: memref<2xf64>, %d_h: memref<2xf64>, %g: memref<2xf64>, %d_g: memref<2xf64>, %y: memref<3xf64>, %d_y: memref<3xf64>) {
  enzyme.autodiff @rnn_ragged(%off, %x, %d_x, %W, %d_W, %U, %d_U, %c, %d_c, %h0, %d_h0, %v, %d_v, %h, %d_h, %g, %d_g, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4xindex>, memref<11x2xf64>, memref<11x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<3xf64>, memref<3xf64>) -> ()
  return
}
