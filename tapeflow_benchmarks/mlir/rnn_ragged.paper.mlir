// rnn_ragged, preset paper (B=24, H=6, E=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rnn_ragged.py, not this file.
func.func @rnn_ragged(%off: memref<25xindex>, %x: memref<162x4xf64>, %W: memref<6x4xf64>, %U: memref<6x6xf64>, %c: memref<6xf64>, %h0: memref<6xf64>, %v: memref<6xf64>, %h: memref<6xf64>, %g: memref<6xf64>, %y: memref<24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c24 = arith.constant 24 : index
  %zero = arith.constant 0.0 : f64
  scf.for %b = %c0 to %c24 step %c1 {
    %b1 = arith.addi %b, %c1 : index
    %lo = memref.load %off[%b] : memref<25xindex>
    %hi = memref.load %off[%b1] : memref<25xindex>
    scf.for %i = %c0 to %c6 step %c1 {
      %v0 = memref.load %h0[%i] : memref<6xf64>
      memref.store %v0, %h[%i] : memref<6xf64>
    }
    scf.for %t = %lo to %hi step %c1 {
      scf.for %i = %c0 to %c6 step %c1 {
        %ci = memref.load %c[%i] : memref<6xf64>
        %sx = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %ci) -> (f64) {
          %w = memref.load %W[%i, %k] : memref<6x4xf64>
          %xv = memref.load %x[%t, %k] : memref<162x4xf64>
          %p = arith.mulf %w, %xv : f64
          %next = arith.addf %acc, %p : f64
          scf.yield %next : f64
        }
        %sh = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %sx) -> (f64) {
          %u = memref.load %U[%i, %k] : memref<6x6xf64>
          %hk = memref.load %h[%k] : memref<6xf64>
          %p = arith.mulf %u, %hk : f64
          %next = arith.addf %acc, %p : f64
          scf.yield %next : f64
        }
        %th = math.tanh %sh : f64
        memref.store %th, %g[%i] : memref<6xf64>
      }
      scf.for %i = %c0 to %c6 step %c1 {
        %gi = memref.load %g[%i] : memref<6xf64>
        memref.store %gi, %h[%i] : memref<6xf64>
      }
    }
    %z = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %vi = memref.load %v[%i] : memref<6xf64>
      %hi2 = memref.load %h[%i] : memref<6xf64>
      %p = arith.mulf %vi, %hi2 : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %tz = math.tanh %z : f64
    memref.store %tz, %y[%b] : memref<24xf64>
  }
  return
}

func.func @rnn_ragged_grad(%off: memref<25xindex>, %x: memref<162x4xf64>, %d_x: memref<162x4xf64>, %W: memref<6x4xf64>, %d_W: memref<6x4xf64>, %U: memref<6x6xf64>, %d_U: memref<6x6xf64>, %c: memref<6xf64>, %d_c: memref<6xf64>, %h0: memref<6xf64>, %d_h0: memref<6xf64>, %v: memref<6xf64>, %d_v: memref<6xf64>, %h: memref<6xf64>, %d_h: memref<6xf64>, %g: memref<6xf64>, %d_g: memref<6xf64>, %y: memref<24xf64>, %d_y: memref<24xf64>) {
  enzyme.autodiff @rnn_ragged(%off, %x, %d_x, %W, %d_W, %U, %d_U, %c, %d_c, %h0, %d_h0, %v, %d_v, %h, %d_h, %g, %d_g, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<25xindex>, memref<162x4xf64>, memref<162x4xf64>, memref<6x4xf64>, memref<6x4xf64>, memref<6x6xf64>, memref<6x6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<24xf64>, memref<24xf64>) -> ()
  return
}
