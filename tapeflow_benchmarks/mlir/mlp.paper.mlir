// mlp, preset paper (M=64, K=48).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mlp.py, not this file.
func.func @mlp(%W: memref<64x48xf64>, %x: memref<48xf64>, %b: memref<64xf64>, %y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %bias = memref.load %b[%i] : memref<64xf64>
    %s = scf.for %k = %c0 to %c48 step %c1 iter_args(%acc = %bias) -> (f64) {
      %wv = memref.load %W[%i, %k] : memref<64x48xf64>
      %xv = memref.load %x[%k] : memref<48xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<64xf64>
  }
  return
}

func.func @mlp_grad(%W: memref<64x48xf64>, %d_W: memref<64x48xf64>, %x: memref<48xf64>, %d_x: memref<48xf64>, %b: memref<64xf64>, %d_b: memref<64xf64>, %y: memref<64xf64>, %d_y: memref<64xf64>) {
  enzyme.autodiff @mlp(%W, %d_W, %x, %d_x, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<64x48xf64>, memref<64x48xf64>, memref<48xf64>, memref<48xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>, memref<64xf64>) -> ()
  return
}
