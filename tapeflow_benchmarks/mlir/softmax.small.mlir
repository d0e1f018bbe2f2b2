// softmax, preset small (R=4, C=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/softmax.py, not this file.
func.func @softmax(%x: memref<4x6xf64>, %y: memref<4x6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    %s = scf.for %j = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
      %xv = memref.load %x[%r, %j] : memref<4x6xf64>
      %e = math.exp %xv : f64
      %next = arith.addf %acc, %e : f64
      scf.yield %next : f64
    }
    %inv = arith.divf %one, %s : f64
    scf.for %j = %c0 to %c6 step %c1 {
      %xv = memref.load %x[%r, %j] : memref<4x6xf64>
      %e = math.exp %xv : f64
      %v = arith.mulf %e, %inv : f64
      memref.store %v, %y[%r, %j] : memref<4x6xf64>
    }
  }
  return
}

func.func @softmax_grad(%x: memref<4x6xf64>, %d_x: memref<4x6xf64>, %y: memref<4x6xf64>, %d_y: memref<4x6xf64>) {
  enzyme.autodiff @softmax(%x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x6xf64>, memref<4x6xf64>, memref<4x6xf64>, memref<4x6xf64>) -> ()
  return
}
