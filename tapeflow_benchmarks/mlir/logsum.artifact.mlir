// logsum, preset artifact (N=10000, U=8).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/logsum.py, not this file.
func.func @logsum(%x: memref<10000xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c1250 = arith.constant 1250 : index
  %one = arith.constant 1.0 : f64
  %A = memref.load %x[%c0] : memref<10000xf64>
  %sema = scf.for %i_trip = %c0 to %c1250 step %c1 iter_args(%acc = %one) -> (f64) {
    %i = arith.muli %i_trip, %c8 : index
    %xi_u0 = memref.load %x[%i] : memref<10000xf64>
    %d_u0 = arith.subf %xi_u0, %A : f64
    %e_u0 = math.exp %d_u0 : f64
    %next_u0 = arith.mulf %acc, %e_u0 : f64
    %i_u1 = arith.addi %i, %c1 : index
    %xi_u1 = memref.load %x[%i_u1] : memref<10000xf64>
    %d_u1 = arith.subf %xi_u1, %A : f64
    %e_u1 = math.exp %d_u1 : f64
    %next_u1 = arith.mulf %next_u0, %e_u1 : f64
    %i_u2 = arith.addi %i, %c2 : index
    %xi_u2 = memref.load %x[%i_u2] : memref<10000xf64>
    %d_u2 = arith.subf %xi_u2, %A : f64
    %e_u2 = math.exp %d_u2 : f64
    %next_u2 = arith.mulf %next_u1, %e_u2 : f64
    %i_u3 = arith.addi %i, %c3 : index
    %xi_u3 = memref.load %x[%i_u3] : memref<10000xf64>
    %d_u3 = arith.subf %xi_u3, %A : f64
    %e_u3 = math.exp %d_u3 : f64
    %next_u3 = arith.mulf %next_u2, %e_u3 : f64
    %i_u4 = arith.addi %i, %c4 : index
    %xi_u4 = memref.load %x[%i_u4] : memref<10000xf64>
    %d_u4 = arith.subf %xi_u4, %A : f64
    %e_u4 = math.exp %d_u4 : f64
    %next_u4 = arith.mulf %next_u3, %e_u4 : f64
    %i_u5 = arith.addi %i, %c5 : index
    %xi_u5 = memref.load %x[%i_u5] : memref<10000xf64>
    %d_u5 = arith.subf %xi_u5, %A : f64
    %e_u5 = math.exp %d_u5 : f64
    %next_u5 = arith.mulf %next_u4, %e_u5 : f64
    %i_u6 = arith.addi %i, %c6 : index
    %xi_u6 = memref.load %x[%i_u6] : memref<10000xf64>
    %d_u6 = arith.subf %xi_u6, %A : f64
    %e_u6 = math.exp %d_u6 : f64
    %next_u6 = arith.mulf %next_u5, %e_u6 : f64
    %i_u7 = arith.addi %i, %c7 : index
    %xi_u7 = memref.load %x[%i_u7] : memref<10000xf64>
    %d_u7 = arith.subf %xi_u7, %A : f64
    %e_u7 = math.exp %d_u7 : f64
    %next_u7 = arith.mulf %next_u6, %e_u7 : f64
    scf.yield %next_u7 : f64
  }
  %log = math.log %sema : f64
  %r = arith.addf %log, %A : f64
  return %r : f64
}

func.func @logsum_grad(%x: memref<10000xf64>, %d_x: memref<10000xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logsum(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<10000xf64>, memref<10000xf64>, f64) -> f64
  return %r : f64
}
