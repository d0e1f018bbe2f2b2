// rowlse, preset small (N=8, K=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rowlse.py, not this file.
func.func @rowlse(%x: memref<8x4xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%i, %k] : memref<8x4xf64>
      %e = math.exp %xv : f64
      %next = arith.addf %acc, %e : f64
      scf.yield %next : f64
    }
    %l = math.log %s : f64
    memref.store %l, %y[%i] : memref<8xf64>
  }
  return
}

func.func @rowlse_grad(%x: memref<8x4xf64>, %d_x: memref<8x4xf64>, %y: memref<8xf64>, %d_y: memref<8xf64>) {
  enzyme.autodiff @rowlse(%x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<8xf64>, memref<8xf64>) -> ()
  return
}
