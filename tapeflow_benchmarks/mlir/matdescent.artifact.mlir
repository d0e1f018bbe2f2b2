// matdescent, preset artifact (R=400, C=400, U=16, start=0).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/matdescent.py, not this file.
func.func @matdescent(%M: memref<400x400xf64>, %v: memref<400xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %c14 = arith.constant 14 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c25 = arith.constant 25 : index
  %c400 = arith.constant 400 : index
  %zero = arith.constant 0.0 : f64
  %start = arith.constant 0.0 : f64
  %out = memref.alloca() : memref<400xf64>
  scf.for %i = %c0 to %c400 step %c1 {
    %dot = scf.for %j_trip = %c0 to %c25 step %c1 iter_args(%acc = %zero) -> (f64) {
      %j = arith.muli %j_trip, %c16 : index
      %m_u0 = memref.load %M[%i, %j] : memref<400x400xf64>
      %v_j_u0 = memref.load %v[%j] : memref<400xf64>
      %mv_u0 = arith.mulf %m_u0, %v_j_u0 : f64
      %next_u0 = arith.addf %acc, %mv_u0 : f64
      %j_u1 = arith.addi %j, %c1 : index
      %m_u1 = memref.load %M[%i, %j_u1] : memref<400x400xf64>
      %v_j_u1 = memref.load %v[%j_u1] : memref<400xf64>
      %mv_u1 = arith.mulf %m_u1, %v_j_u1 : f64
      %next_u1 = arith.addf %next_u0, %mv_u1 : f64
      %j_u2 = arith.addi %j, %c2 : index
      %m_u2 = memref.load %M[%i, %j_u2] : memref<400x400xf64>
      %v_j_u2 = memref.load %v[%j_u2] : memref<400xf64>
      %mv_u2 = arith.mulf %m_u2, %v_j_u2 : f64
      %next_u2 = arith.addf %next_u1, %mv_u2 : f64
      %j_u3 = arith.addi %j, %c3 : index
      %m_u3 = memref.load %M[%i, %j_u3] : memref<400x400xf64>
      %v_j_u3 = memref.load %v[%j_u3] : memref<400xf64>
      %mv_u3 = arith.mulf %m_u3, %v_j_u3 : f64
      %next_u3 = arith.addf %next_u2, %mv_u3 : f64
      %j_u4 = arith.addi %j, %c4 : index
      %m_u4 = memref.load %M[%i, %j_u4] : memref<400x400xf64>
      %v_j_u4 = memref.load %v[%j_u4] : memref<400xf64>
      %mv_u4 = arith.mulf %m_u4, %v_j_u4 : f64
      %next_u4 = arith.addf %next_u3, %mv_u4 : f64
      %j_u5 = arith.addi %j, %c5 : index
      %m_u5 = memref.load %M[%i, %j_u5] : memref<400x400xf64>
      %v_j_u5 = memref.load %v[%j_u5] : memref<400xf64>
      %mv_u5 = arith.mulf %m_u5, %v_j_u5 : f64
      %next_u5 = arith.addf %next_u4, %mv_u5 : f64
      %j_u6 = arith.addi %j, %c6 : index
      %m_u6 = memref.load %M[%i, %j_u6] : memref<400x400xf64>
      %v_j_u6 = memref.load %v[%j_u6] : memref<400xf64>
      %mv_u6 = arith.mulf %m_u6, %v_j_u6 : f64
      %next_u6 = arith.addf %next_u5, %mv_u6 : f64
      %j_u7 = arith.addi %j, %c7 : index
      %m_u7 = memref.load %M[%i, %j_u7] : memref<400x400xf64>
      %v_j_u7 = memref.load %v[%j_u7] : memref<400xf64>
      %mv_u7 = arith.mulf %m_u7, %v_j_u7 : f64
      %next_u7 = arith.addf %next_u6, %mv_u7 : f64
      %j_u8 = arith.addi %j, %c8 : index
      %m_u8 = memref.load %M[%i, %j_u8] : memref<400x400xf64>
      %v_j_u8 = memref.load %v[%j_u8] : memref<400xf64>
      %mv_u8 = arith.mulf %m_u8, %v_j_u8 : f64
      %next_u8 = arith.addf %next_u7, %mv_u8 : f64
      %j_u9 = arith.addi %j, %c9 : index
      %m_u9 = memref.load %M[%i, %j_u9] : memref<400x400xf64>
      %v_j_u9 = memref.load %v[%j_u9] : memref<400xf64>
      %mv_u9 = arith.mulf %m_u9, %v_j_u9 : f64
      %next_u9 = arith.addf %next_u8, %mv_u9 : f64
      %j_u10 = arith.addi %j, %c10 : index
      %m_u10 = memref.load %M[%i, %j_u10] : memref<400x400xf64>
      %v_j_u10 = memref.load %v[%j_u10] : memref<400xf64>
      %mv_u10 = arith.mulf %m_u10, %v_j_u10 : f64
      %next_u10 = arith.addf %next_u9, %mv_u10 : f64
      %j_u11 = arith.addi %j, %c11 : index
      %m_u11 = memref.load %M[%i, %j_u11] : memref<400x400xf64>
      %v_j_u11 = memref.load %v[%j_u11] : memref<400xf64>
      %mv_u11 = arith.mulf %m_u11, %v_j_u11 : f64
      %next_u11 = arith.addf %next_u10, %mv_u11 : f64
      %j_u12 = arith.addi %j, %c12 : index
      %m_u12 = memref.load %M[%i, %j_u12] : memref<400x400xf64>
      %v_j_u12 = memref.load %v[%j_u12] : memref<400xf64>
      %mv_u12 = arith.mulf %m_u12, %v_j_u12 : f64
      %next_u12 = arith.addf %next_u11, %mv_u12 : f64
      %j_u13 = arith.addi %j, %c13 : index
      %m_u13 = memref.load %M[%i, %j_u13] : memref<400x400xf64>
      %v_j_u13 = memref.load %v[%j_u13] : memref<400xf64>
      %mv_u13 = arith.mulf %m_u13, %v_j_u13 : f64
      %next_u13 = arith.addf %next_u12, %mv_u13 : f64
      %j_u14 = arith.addi %j, %c14 : index
      %m_u14 = memref.load %M[%i, %j_u14] : memref<400x400xf64>
      %v_j_u14 = memref.load %v[%j_u14] : memref<400xf64>
      %mv_u14 = arith.mulf %m_u14, %v_j_u14 : f64
      %next_u14 = arith.addf %next_u13, %mv_u14 : f64
      %j_u15 = arith.addi %j, %c15 : index
      %m_u15 = memref.load %M[%i, %j_u15] : memref<400x400xf64>
      %v_j_u15 = memref.load %v[%j_u15] : memref<400xf64>
      %mv_u15 = arith.mulf %m_u15, %v_j_u15 : f64
      %next_u15 = arith.addf %next_u14, %mv_u15 : f64
      scf.yield %next_u15 : f64
    }
    memref.store %dot, %out[%i] : memref<400xf64>
  }
  %sum = scf.for %i = %c0 to %c400 step %c1 iter_args(%acc = %start) -> (f64) {
    %o = memref.load %out[%i] : memref<400xf64>
    %twice = arith.addf %o, %o : f64
    %next = arith.mulf %acc, %twice : f64
    scf.yield %next : f64
  }
  return %sum : f64
}

func.func @matdescent_grad(%M: memref<400x400xf64>, %v: memref<400xf64>, %d_v: memref<400xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @matdescent(%M, %v, %d_v, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<400x400xf64>, memref<400xf64>, memref<400xf64>, f64) -> f64
  return %r : f64
}
