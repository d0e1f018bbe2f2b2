// nn, preset artifact (S=784, L=10, label=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/nn.py, not this file.
func.func @nn(%p: memref<784xf64>, %W: memref<10x784xf64>, %b: memref<10xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %c784 = arith.constant 784 : index
  %zero = arith.constant 0.0 : f64
  %c255f = arith.constant 255.0 : f64
  %a = memref.alloca() : memref<10xf64>
  scf.for %i = %c0 to %c10 step %c1 {
    %b_i = memref.load %b[%i] : memref<10xf64>
    %a_i = scf.for %j = %c0 to %c784 step %c1 iter_args(%acc = %b_i) -> (f64) {
      %w = memref.load %W[%i, %j] : memref<10x784xf64>
      %p_j = memref.load %p[%j] : memref<784xf64>
      %wp = arith.mulf %w, %p_j : f64
      %scaled = arith.divf %wp, %c255f : f64
      %next = arith.addf %acc, %scaled : f64
      scf.yield %next : f64
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
  %q_label = memref.load %q[%c3] : memref<10xf64>
  %log = math.log %q_label : f64
  %loss = arith.negf %log : f64
  return %loss : f64
}

func.func @nn_grad(%p: memref<784xf64>, %W: memref<10x784xf64>, %d_W: memref<10x784xf64>, %b: memref<10xf64>, %d_b: memref<10xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @nn(%p, %W, %d_W, %b, %d_b, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<784xf64>, memref<10x784xf64>, memref<10x784xf64>, memref<10xf64>, memref<10xf64>, f64) -> f64
  return %r : f64
}
