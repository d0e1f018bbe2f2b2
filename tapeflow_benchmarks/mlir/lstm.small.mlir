// lstm, preset small (T=2, H=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/lstm.py, not this file.
func.func @lstm(%W: memref<4x3x3xf64>, %U: memref<4x3xf64>, %x: memref<2xf64>, %h: memref<3x3xf64>, %c: memref<3x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f64
  scf.for %t = %c0 to %c2 step %c1 {
    %xt = memref.load %x[%t] : memref<2xf64>
    %t1 = arith.addi %t, %c1 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %u0 = memref.load %U[%c0, %i] : memref<4x3xf64>
      %in0 = arith.mulf %u0, %xt : f64
      %u1 = memref.load %U[%c1, %i] : memref<4x3xf64>
      %in1 = arith.mulf %u1, %xt : f64
      %u2 = memref.load %U[%c2, %i] : memref<4x3xf64>
      %in2 = arith.mulf %u2, %xt : f64
      %u3 = memref.load %U[%c3, %i] : memref<4x3xf64>
      %in3 = arith.mulf %u3, %xt : f64
      %s0, %s1, %s2, %s3 = scf.for %j = %c0 to %c3 step %c1
          iter_args(%a0 = %in0, %a1 = %in1, %a2 = %in2, %a3 = %in3) -> (f64, f64, f64, f64) {
        %hv = memref.load %h[%t, %j] : memref<3x3xf64>
        %w0 = memref.load %W[%c0, %i, %j] : memref<4x3x3xf64>
        %p0 = arith.mulf %w0, %hv : f64
        %n0 = arith.addf %a0, %p0 : f64
        %w1 = memref.load %W[%c1, %i, %j] : memref<4x3x3xf64>
        %p1 = arith.mulf %w1, %hv : f64
        %n1 = arith.addf %a1, %p1 : f64
        %w2 = memref.load %W[%c2, %i, %j] : memref<4x3x3xf64>
        %p2 = arith.mulf %w2, %hv : f64
        %n2 = arith.addf %a2, %p2 : f64
        %w3 = memref.load %W[%c3, %i, %j] : memref<4x3x3xf64>
        %p3 = arith.mulf %w3, %hv : f64
        %n3 = arith.addf %a3, %p3 : f64
        scf.yield %n0, %n1, %n2, %n3 : f64, f64, f64, f64
      }
      %ig_n = arith.negf %s0 : f64
      %ig_e = math.exp %ig_n : f64
      %ig_d = arith.addf %one, %ig_e : f64
      %ig = arith.divf %one, %ig_d : f64
      %fg_n = arith.negf %s1 : f64
      %fg_e = math.exp %fg_n : f64
      %fg_d = arith.addf %one, %fg_e : f64
      %fg = arith.divf %one, %fg_d : f64
      %og_n = arith.negf %s3 : f64
      %og_e = math.exp %og_n : f64
      %og_d = arith.addf %one, %og_e : f64
      %og = arith.divf %one, %og_d : f64
      %gg = math.tanh %s2 : f64
      %cold = memref.load %c[%t, %i] : memref<3x3xf64>
      %kept = arith.mulf %fg, %cold : f64
      %added = arith.mulf %ig, %gg : f64
      %cnew = arith.addf %kept, %added : f64
      memref.store %cnew, %c[%t1, %i] : memref<3x3xf64>
      %ct = math.tanh %cnew : f64
      %hnew = arith.mulf %og, %ct : f64
      memref.store %hnew, %h[%t1, %i] : memref<3x3xf64>
    }
  }
  return
}

func.func @lstm_grad(%W: memref<4x3x3xf64>, %d_W: memref<4x3x3xf64>, %U: memref<4x3xf64>, %d_U: memref<4x3xf64>, %x: memref<2xf64>, %d_x: memref<2xf64>, %h: memref<3x3xf64>, %d_h: memref<3x3xf64>, %c: memref<3x3xf64>, %d_c: memref<3x3xf64>) {
  enzyme.autodiff @lstm(%W, %d_W, %U, %d_U, %x, %d_x, %h, %d_h, %c, %d_c) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x3x3xf64>, memref<4x3x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<2xf64>, memref<2xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<3x3xf64>) -> ()
  return
}
