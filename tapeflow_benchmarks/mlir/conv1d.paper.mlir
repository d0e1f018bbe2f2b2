// conv1d, preset paper (N=512, K=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/conv1d.py, not this file.
func.func @conv1d(%x: memref<514xf64>, %w: memref<3xf64>, %y: memref<512xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c512 step %c1 {
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %ik = arith.addi %i, %k : index
      %xv = memref.load %x[%ik] : memref<514xf64>
      %wv = memref.load %w[%k] : memref<3xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<512xf64>
  }
  return
}

func.func @conv1d_grad(%x: memref<514xf64>, %d_x: memref<514xf64>, %w: memref<3xf64>, %d_w: memref<3xf64>, %y: memref<512xf64>, %d_y: memref<512xf64>) {
  enzyme.autodiff @conv1d(%x, %d_x, %w, %d_w, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<514xf64>, memref<514xf64>, memref<3xf64>, memref<3xf64>, memref<512xf64>, memref<512xf64>) -> ()
  return
}
