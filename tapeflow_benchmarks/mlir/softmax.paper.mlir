// softmax, preset paper (R=64, C=64).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/softmax.py, not this file.
func.func @softmax(%x: memref<64x64xf64>, %y: memref<64x64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %r = %c0 to %c64 step %c1 {
    %s = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%r, %j] : memref<64x64xf64>
      %e = math.exp %xv : f64
      %next = arith.addf %acc, %e : f64
      scf.yield %next : f64
    }
    %inv = arith.divf %one, %s : f64
    scf.for %j = %c0 to %c64 step %c1 {
      %xv = memref.load %x[%r, %j] : memref<64x64xf64>
      %e = math.exp %xv : f64
      %v = arith.mulf %e, %inv : f64
      memref.store %v, %y[%r, %j] : memref<64x64xf64>
    }
  }
  return
}

func.func @softmax_grad(%x: memref<64x64xf64>, %d_x: memref<64x64xf64>, %y: memref<64x64xf64>, %d_y: memref<64x64xf64>) {
  enzyme.autodiff @softmax(%x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  return
}
