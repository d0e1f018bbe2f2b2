// conv1d_n, preset paper (N=512, K=3, n=512).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/conv1d_n.py, not this file.
func.func @conv1d_n(%x: memref<?xf64>, %w: memref<3xf64>, %y: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %ik = arith.addi %i, %k : index
      %xv = memref.load %x[%ik] : memref<?xf64>
      %wv = memref.load %w[%k] : memref<3xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<?xf64>
  }
  return
}

func.func @conv1d_n_grad(%x: memref<?xf64>, %d_x: memref<?xf64>, %w: memref<3xf64>, %d_w: memref<3xf64>, %y: memref<?xf64>, %d_y: memref<?xf64>, %n: index) {
  enzyme.autodiff @conv1d_n(%x, %d_x, %w, %d_w, %y, %d_y, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?xf64>, memref<?xf64>, memref<3xf64>, memref<3xf64>, memref<?xf64>, memref<?xf64>, index) -> ()
  return
}
