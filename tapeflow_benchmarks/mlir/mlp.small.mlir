// mlp, preset small (M=8, K=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mlp.py, not this file.
func.func @mlp(%W: memref<8x4xf64>, %x: memref<4xf64>, %b: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %bias = memref.load %b[%i] : memref<8xf64>
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %bias) -> (f64) {
      %wv = memref.load %W[%i, %k] : memref<8x4xf64>
      %xv = memref.load %x[%k] : memref<4xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<8xf64>
  }
  return
}

func.func @mlp_grad(%W: memref<8x4xf64>, %d_W: memref<8x4xf64>, %x: memref<4xf64>, %d_x: memref<4xf64>, %b: memref<8xf64>, %d_b: memref<8xf64>, %y: memref<8xf64>, %d_y: memref<8xf64>) {
  enzyme.autodiff @mlp(%W, %d_W, %x, %d_x, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<4xf64>, memref<4xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
