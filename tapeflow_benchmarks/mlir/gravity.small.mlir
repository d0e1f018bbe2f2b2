// gravity, preset small (N=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gravity.py, not this file.
func.func @gravity(%x: memref<64xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %minus_one = arith.constant -1.0 : f64
  %softening = arith.constant 0.001 : f64
  %u = scf.for %r = %c0 to %c4 step %c1 iter_args(%u_r = %one) -> (f64) {
    %mirror = arith.subi %c7, %r : index
    %u_rc = scf.for %c = %c0 to %c7 step %c1 iter_args(%acc = %u_r) -> (f64) {
      %first = arith.cmpi ult, %c, %mirror : index
      %c_next = arith.addi %c, %c1 : index
      %j_first = arith.addi %c_next, %r : index
      %i = arith.select %first, %r, %mirror : index
      %j = arith.select %first, %j_first, %c_next : index
      %row_i = arith.muli %i, %c8 : index
      %ij = arith.addi %row_i, %j : index
      %row_j = arith.muli %j, %c8 : index
      %ji = arith.addi %row_j, %i : index
      %x_ij = memref.load %x[%ij] : memref<64xf64>
      %x_ji = memref.load %x[%ji] : memref<64xf64>
      %diff = arith.subf %x_ij, %x_ji : f64
      %r_soft = arith.addf %diff, %softening : f64
      %factor = arith.divf %minus_one, %r_soft : f64
      %next = arith.mulf %acc, %factor : f64
      scf.yield %next : f64
    }
    scf.yield %u_rc : f64
  }
  return %u : f64
}

func.func @gravity_grad(%x: memref<64xf64>, %d_x: memref<64xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @gravity(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<64xf64>, memref<64xf64>, f64) -> f64
  return %r : f64
}
