// gravity, preset artifact (N=512, triangular=1).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gravity.py, not this file.
func.func @gravity(%x: memref<65536xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f64
  %minus_one = arith.constant -1.0 : f64
  %softening = arith.constant 0.001 : f64
  %u = scf.for %i = %c0 to %c256 step %c1 iter_args(%u_i = %one) -> (f64) {
    %first = arith.addi %i, %c1 : index
    %row_i = arith.muli %i, %c256 : index
    %u_ij = scf.for %j = %first to %c256 step %c1 iter_args(%acc = %u_i) -> (f64) {
      %ij = arith.addi %row_i, %j : index
      %row_j = arith.muli %j, %c256 : index
      %ji = arith.addi %row_j, %i : index
      %x_ij = memref.load %x[%ij] : memref<65536xf64>
      %x_ji = memref.load %x[%ji] : memref<65536xf64>
      %diff = arith.subf %x_ij, %x_ji : f64
      %r_soft = arith.addf %diff, %softening : f64
      %factor = arith.divf %minus_one, %r_soft : f64
      %next = arith.mulf %acc, %factor : f64
      scf.yield %next : f64
    }
    scf.yield %u_ij : f64
  }
  return %u : f64
}

func.func @gravity_grad(%x: memref<65536xf64>, %d_x: memref<65536xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @gravity(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<65536xf64>, memref<65536xf64>, f64) -> f64
  return %r : f64
}
