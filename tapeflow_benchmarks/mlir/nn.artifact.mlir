// nn, preset artifact (S=784, L=10, label=1, U=8, pixel_first=1).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/nn.py, not this file.
func.func @nn(%p: memref<784xf64>, %W: memref<10x784xf64>, %b: memref<10xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c98 = arith.constant 98 : index
  %zero = arith.constant 0.0 : f64
  %c255f = arith.constant 255.0 : f64
  %a = memref.alloca() : memref<10xf64>
  scf.for %i = %c0 to %c10 step %c1 {
    %b_i = memref.load %b[%i] : memref<10xf64>
    %a_i = scf.for %j_trip = %c0 to %c98 step %c1 iter_args(%acc = %b_i) -> (f64) {
      %j = arith.muli %j_trip, %c8 : index
      %w_u0 = memref.load %W[%i, %j] : memref<10x784xf64>
      %p_j_u0 = memref.load %p[%j] : memref<784xf64>
      %scaled_u0 = arith.divf %p_j_u0, %c255f : f64
      %wp_u0 = arith.mulf %w_u0, %scaled_u0 : f64
      %next_u0 = arith.addf %acc, %wp_u0 : f64
      %j_u1 = arith.addi %j, %c1 : index
      %w_u1 = memref.load %W[%i, %j_u1] : memref<10x784xf64>
      %p_j_u1 = memref.load %p[%j_u1] : memref<784xf64>
      %scaled_u1 = arith.divf %p_j_u1, %c255f : f64
      %wp_u1 = arith.mulf %w_u1, %scaled_u1 : f64
      %next_u1 = arith.addf %next_u0, %wp_u1 : f64
      %j_u2 = arith.addi %j, %c2 : index
      %w_u2 = memref.load %W[%i, %j_u2] : memref<10x784xf64>
      %p_j_u2 = memref.load %p[%j_u2] : memref<784xf64>
      %scaled_u2 = arith.divf %p_j_u2, %c255f : f64
      %wp_u2 = arith.mulf %w_u2, %scaled_u2 : f64
      %next_u2 = arith.addf %next_u1, %wp_u2 : f64
      %j_u3 = arith.addi %j, %c3 : index
      %w_u3 = memref.load %W[%i, %j_u3] : memref<10x784xf64>
      %p_j_u3 = memref.load %p[%j_u3] : memref<784xf64>
      %scaled_u3 = arith.divf %p_j_u3, %c255f : f64
      %wp_u3 = arith.mulf %w_u3, %scaled_u3 : f64
      %next_u3 = arith.addf %next_u2, %wp_u3 : f64
      %j_u4 = arith.addi %j, %c4 : index
      %w_u4 = memref.load %W[%i, %j_u4] : memref<10x784xf64>
      %p_j_u4 = memref.load %p[%j_u4] : memref<784xf64>
      %scaled_u4 = arith.divf %p_j_u4, %c255f : f64
      %wp_u4 = arith.mulf %w_u4, %scaled_u4 : f64
      %next_u4 = arith.addf %next_u3, %wp_u4 : f64
      %j_u5 = arith.addi %j, %c5 : index
      %w_u5 = memref.load %W[%i, %j_u5] : memref<10x784xf64>
      %p_j_u5 = memref.load %p[%j_u5] : memref<784xf64>
      %scaled_u5 = arith.divf %p_j_u5, %c255f : f64
      %wp_u5 = arith.mulf %w_u5, %scaled_u5 : f64
      %next_u5 = arith.addf %next_u4, %wp_u5 : f64
      %j_u6 = arith.addi %j, %c6 : index
      %w_u6 = memref.load %W[%i, %j_u6] : memref<10x784xf64>
      %p_j_u6 = memref.load %p[%j_u6] : memref<784xf64>
      %scaled_u6 = arith.divf %p_j_u6, %c255f : f64
      %wp_u6 = arith.mulf %w_u6, %scaled_u6 : f64
      %next_u6 = arith.addf %next_u5, %wp_u6 : f64
      %j_u7 = arith.addi %j, %c7 : index
      %w_u7 = memref.load %W[%i, %j_u7] : memref<10x784xf64>
      %p_j_u7 = memref.load %p[%j_u7] : memref<784xf64>
      %scaled_u7 = arith.divf %p_j_u7, %c255f : f64
      %wp_u7 = arith.mulf %w_u7, %scaled_u7 : f64
      %next_u7 = arith.addf %next_u6, %wp_u7 : f64
      scf.yield %next_u7 : f64
    }
    memref.store %a_i, %a[%i] : memref<10xf64>
  }
  %a_0 = memref.load %a[%c0] : memref<10xf64>
  %max = scf.for %i = %c1 to %c10 step %c1 iter_args(%m = %a_0) -> (f64) {
    %a_i = memref.load %a[%i] : memref<10xf64>
    %next = arith.maximumf %m, %a_i : f64
    scf.yield %next : f64
  }
  %sum = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %zero) -> (f64) {
    %a_i = memref.load %a[%i] : memref<10xf64>
    %shifted = arith.subf %a_i, %max : f64
    %e = math.exp %shifted : f64
    %next = arith.addf %acc, %e : f64
    scf.yield %next : f64
  }
  %q = memref.alloca() : memref<10xf64>
  scf.for %i = %c0 to %c10 step %c1 {
    %a_i = memref.load %a[%i] : memref<10xf64>
    %shifted = arith.subf %a_i, %max : f64
    %e = math.exp %shifted : f64
    %q_i = arith.divf %e, %sum : f64
    memref.store %q_i, %q[%i] : memref<10xf64>
  }
  %q_label = memref.load %q[%c1] : memref<10xf64>
  %log = math.log %q_label : f64
  %loss = arith.negf %log : f64
  return %loss : f64
}

func.func @nn_grad(%p: memref<784xf64>, %W: memref<10x784xf64>, %d_W: memref<10x784xf64>, %b: memref<10xf64>, %d_b: memref<10xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @nn(%p, %W, %d_W, %b, %d_b, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<784xf64>, memref<10x784xf64>, memref<10x784xf64>, memref<10xf64>, memref<10xf64>, f64) -> f64
  return %r : f64
}
