// rowlse, preset paper (N=1000, K=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rowlse.py, not this file.
func.func @rowlse(%x: memref<1000x4xf64>, %y: memref<1000xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c1000 step %c1 {
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%i, %k] : memref<1000x4xf64>
      %e = math.exp %xv : f64
      %next = arith.addf %acc, %e : f64
      scf.yield %next : f64
    }
    %l = math.log %s : f64
    memref.store %l, %y[%i] : memref<1000xf64>
  }
  return
}

func.func @rowlse_grad(%x: memref<1000x4xf64>, %d_x: memref<1000x4xf64>, %y: memref<1000xf64>, %d_y: memref<1000xf64>) {
  enzyme.autodiff @rowlse(%x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<1000x4xf64>, memref<1000x4xf64>, memref<1000xf64>, memref<1000xf64>) -> ()
  return
}
