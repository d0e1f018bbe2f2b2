// massspring, preset artifact (O=32, H=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/massspring.py, not this file.
func.func @massspring(%x: memref<32x2xf64>, %v: memref<32x2xf64>, %W1: memref<16x146xf64>, %b1: memref<16xf64>, %W2: memref<16x16xf64>, %b2: memref<16xf64>, %L: memref<16xf64>, %A: memref<16xf64>, %vinc: memref<32x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c144 = arith.constant 144 : index
  %c145 = arith.constant 145 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %phase0 = arith.constant 0.2 : f64
  %dphase = arith.constant 0.39269908169872414 : f64
  %state_scale = arith.constant 0.05 : f64
  %goal0 = arith.constant 0.3 : f64
  %goal1 = arith.constant -0.1 : f64
  %length_eps = arith.constant 0.0001 : f64
  // nn1
  %hidden = memref.alloca() : memref<16xf64>
  scf.for %i = %c0 to %c16 step %c1 {
    %sines:2 = scf.for %j = %c0 to %c16 step %c1
        iter_args(%acc = %zero, %phase = %phase0) -> (f64, f64) {
      %w = memref.load %W1[%i, %j] : memref<16x146xf64>
      %sin = math.sin %phase : f64
      %term = arith.mulf %w, %sin : f64
      %next = arith.addf %acc, %term : f64
      %next_phase = arith.addf %phase, %dphase : f64
      scf.yield %next, %next_phase : f64, f64
    }
    %state = scf.for %o = %c0 to %c32 step %c1
        iter_args(%acc = %sines#0) -> (f64) {
      %o4 = arith.muli %o, %c4 : index
      %col0 = arith.addi %o4, %c16 : index
      %col1 = arith.addi %col0, %c1 : index
      %col2 = arith.addi %col0, %c2 : index
      %col3 = arith.addi %col0, %c3 : index
      %x0 = memref.load %x[%o, %c0] : memref<32x2xf64>
      %x1 = memref.load %x[%o, %c1] : memref<32x2xf64>
      %v0 = memref.load %v[%o, %c0] : memref<32x2xf64>
      %v1 = memref.load %v[%o, %c1] : memref<32x2xf64>
      %w0 = memref.load %W1[%i, %col0] : memref<16x146xf64>
      %w1 = memref.load %W1[%i, %col1] : memref<16x146xf64>
      %w2 = memref.load %W1[%i, %col2] : memref<16x146xf64>
      %w3 = memref.load %W1[%i, %col3] : memref<16x146xf64>
      %wx0 = arith.mulf %w0, %x0 : f64
      %t0 = arith.mulf %wx0, %state_scale : f64
      %acc0 = arith.addf %acc, %t0 : f64
      %wx1 = arith.mulf %w1, %x1 : f64
      %t1 = arith.mulf %wx1, %state_scale : f64
      %acc1 = arith.addf %acc0, %t1 : f64
      %wv0 = arith.mulf %w2, %v0 : f64
      %t2 = arith.mulf %wv0, %state_scale : f64
      %acc2 = arith.addf %acc1, %t2 : f64
      %wv1 = arith.mulf %w3, %v1 : f64
      %t3 = arith.mulf %wv1, %state_scale : f64
      %acc3 = arith.addf %acc2, %t3 : f64
      scf.yield %acc3 : f64
    }
    %wg0 = memref.load %W1[%i, %c144] : memref<16x146xf64>
    %wg1 = memref.load %W1[%i, %c145] : memref<16x146xf64>
    %g0 = arith.mulf %wg0, %goal0 : f64
    %with_g0 = arith.addf %state, %g0 : f64
    %g1 = arith.mulf %wg1, %goal1 : f64
    %with_g1 = arith.addf %with_g0, %g1 : f64
    %b = memref.load %b1[%i] : memref<16xf64>
    %pre = arith.addf %with_g1, %b : f64
    %hid = math.tanh %pre : f64
    memref.store %hid, %hidden[%i] : memref<16xf64>
  }
  // nn2
  %act = memref.alloca() : memref<16xf64>
  scf.for %s = %c0 to %c16 step %c1 {
    %sum = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
      %w = memref.load %W2[%s, %j] : memref<16x16xf64>
      %hj = memref.load %hidden[%j] : memref<16xf64>
      %term = arith.mulf %w, %hj : f64
      %next = arith.addf %acc, %term : f64
      scf.yield %next : f64
    }
    %b = memref.load %b2[%s] : memref<16xf64>
    %pre = arith.addf %sum, %b : f64
    %a = math.tanh %pre : f64
    memref.store %a, %act[%s] : memref<16xf64>
  }
  // apply spring force
  scf.for %s = %c0 to %c16 step %c1 {
    %a = arith.muli %s, %c2 : index
    %b = arith.addi %a, %c1 : index
    %xa0 = memref.load %x[%a, %c0] : memref<32x2xf64>
    %xa1 = memref.load %x[%a, %c1] : memref<32x2xf64>
    %xb0 = memref.load %x[%b, %c0] : memref<32x2xf64>
    %xb1 = memref.load %x[%b, %c1] : memref<32x2xf64>
    %d0 = arith.subf %xb0, %xa0 : f64
    %d1 = arith.subf %xb1, %xa1 : f64
    %dd0 = arith.mulf %d0, %d0 : f64
    %dd1 = arith.mulf %d1, %d1 : f64
    %dd = arith.addf %dd0, %dd1 : f64
    %norm = math.sqrt %dd : f64
    %len = arith.addf %norm, %length_eps : f64
    %act_s = memref.load %act[%s] : memref<16xf64>
    %amp = memref.load %A[%s] : memref<16xf64>
    %rest = memref.load %L[%s] : memref<16xf64>
    %scaled_act = arith.mulf %act_s, %amp : f64
    %stretch = arith.addf %one, %scaled_act : f64
    %target = arith.mulf %rest, %stretch : f64
    %excess = arith.subf %len, %target : f64
    %ratio = arith.divf %excess, %len : f64
    %imp0 = arith.mulf %ratio, %d0 : f64
    %imp1 = arith.mulf %ratio, %d1 : f64
    %va0 = memref.load %vinc[%a, %c0] : memref<32x2xf64>
    %va0_new = arith.subf %va0, %imp0 : f64
    memref.store %va0_new, %vinc[%a, %c0] : memref<32x2xf64>
    %va1 = memref.load %vinc[%a, %c1] : memref<32x2xf64>
    %va1_new = arith.subf %va1, %imp1 : f64
    memref.store %va1_new, %vinc[%a, %c1] : memref<32x2xf64>
    %vb0 = memref.load %vinc[%b, %c0] : memref<32x2xf64>
    %vb0_new = arith.addf %vb0, %imp0 : f64
    memref.store %vb0_new, %vinc[%b, %c0] : memref<32x2xf64>
    %vb1 = memref.load %vinc[%b, %c1] : memref<32x2xf64>
    %vb1_new = arith.addf %vb1, %imp1 : f64
    memref.store %vb1_new, %vinc[%b, %c1] : memref<32x2xf64>
  }
  return
}

func.func @massspring_grad(%x: memref<32x2xf64>, %v: memref<32x2xf64>, %W1: memref<16x146xf64>, %d_W1: memref<16x146xf64>, %b1: memref<16xf64>, %d_b1: memref<16xf64>, %W2: memref<16x16xf64>, %d_W2: memref<16x16xf64>, %b2: memref<16xf64>, %d_b2: memref<16xf64>, %L: memref<16xf64>, %A: memref<16xf64>, %vinc: memref<32x2xf64>, %d_vinc: memref<32x2xf64>) {
  enzyme.autodiff @massspring(%x, %v, %W1, %d_W1, %b1, %d_b1, %W2, %d_W2, %b2, %d_b2, %L, %A, %vinc, %d_vinc) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x2xf64>, memref<32x2xf64>, memref<16x146xf64>, memref<16x146xf64>, memref<16xf64>, memref<16xf64>, memref<16x16xf64>, memref<16x16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<32x2xf64>, memref<32x2xf64>) -> ()
  return
}
