// atax, preset small (M=5, N=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/atax.py, not this file.
func.func @atax(%A: memref<5x4xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f64
  scf.for %j = %c0 to %c4 step %c1 {
    memref.store %zero, %y[%j] : memref<4xf64>
  }
  scf.for %i = %c0 to %c5 step %c1 {
    %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<5x4xf64>
      %xj = memref.load %x[%j] : memref<4xf64>
      %p = arith.mulf %a, %xj : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %tmp = math.tanh %sum : f64
    scf.for %j = %c0 to %c4 step %c1 {
      %a = memref.load %A[%i, %j] : memref<5x4xf64>
      %p = arith.mulf %a, %tmp : f64
      %yj = memref.load %y[%j] : memref<4xf64>
      %s = arith.addf %yj, %p : f64
      memref.store %s, %y[%j] : memref<4xf64>
    }
  }
  return
}

func.func @atax_grad(%A: memref<5x4xf64>, %d_A: memref<5x4xf64>, %x: memref<4xf64>, %d_x: memref<4xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) {
  enzyme.autodiff @atax(%A, %d_A, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x4xf64>, memref<5x4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
