// gemver, preset paper (N=96).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gemver.py, not this file.
func.func @gemver(%A: memref<96x96xf64>, %u1: memref<96xf64>, %v1: memref<96xf64>, %u2: memref<96xf64>, %v2: memref<96xf64>, %y: memref<96xf64>, %z: memref<96xf64>, %x: memref<96xf64>, %w: memref<96xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c96 step %c1 {
    %u1i = memref.load %u1[%i] : memref<96xf64>
    %u2i = memref.load %u2[%i] : memref<96xf64>
    scf.for %j = %c0 to %c96 step %c1 {
      %a = memref.load %A[%i, %j] : memref<96x96xf64>
      %v1j = memref.load %v1[%j] : memref<96xf64>
      %v2j = memref.load %v2[%j] : memref<96xf64>
      %p1 = arith.mulf %u1i, %v1j : f64
      %p2 = arith.mulf %u2i, %v2j : f64
      %s1 = arith.addf %a, %p1 : f64
      %s2 = arith.addf %s1, %p2 : f64
      memref.store %s2, %A[%i, %j] : memref<96x96xf64>
    }
  }
  scf.for %i = %c0 to %c96 step %c1 {
    %x0 = memref.load %x[%i] : memref<96xf64>
    %xs = scf.for %j = %c0 to %c96 step %c1 iter_args(%acc = %x0) -> (f64) {
      %a = memref.load %A[%j, %i] : memref<96x96xf64>
      %yj = memref.load %y[%j] : memref<96xf64>
      %ba = arith.mulf %beta, %a : f64
      %p = arith.mulf %ba, %yj : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    memref.store %xs, %x[%i] : memref<96xf64>
  }
  scf.for %i = %c0 to %c96 step %c1 {
    %xi = memref.load %x[%i] : memref<96xf64>
    %zi = memref.load %z[%i] : memref<96xf64>
    %s = arith.addf %xi, %zi : f64
    %act = math.tanh %s : f64
    memref.store %act, %x[%i] : memref<96xf64>
  }
  scf.for %i = %c0 to %c96 step %c1 {
    %w0 = memref.load %w[%i] : memref<96xf64>
    %ws = scf.for %j = %c0 to %c96 step %c1 iter_args(%acc = %w0) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<96x96xf64>
      %xj = memref.load %x[%j] : memref<96xf64>
      %aa = arith.mulf %alpha, %a : f64
      %p = arith.mulf %aa, %xj : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    memref.store %ws, %w[%i] : memref<96xf64>
  }
  return
}

func.func @gemver_grad(%A: memref<96x96xf64>, %d_A: memref<96x96xf64>, %u1: memref<96xf64>, %d_u1: memref<96xf64>, %v1: memref<96xf64>, %d_v1: memref<96xf64>, %u2: memref<96xf64>, %d_u2: memref<96xf64>, %v2: memref<96xf64>, %d_v2: memref<96xf64>, %y: memref<96xf64>, %d_y: memref<96xf64>, %z: memref<96xf64>, %d_z: memref<96xf64>, %x: memref<96xf64>, %d_x: memref<96xf64>, %w: memref<96xf64>, %d_w: memref<96xf64>) {
  enzyme.autodiff @gemver(%A, %d_A, %u1, %d_u1, %v1, %d_v1, %u2, %d_u2, %v2, %d_v2, %y, %d_y, %z, %d_z, %x, %d_x, %w, %d_w) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<96x96xf64>, memref<96x96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>) -> ()
  return
}
