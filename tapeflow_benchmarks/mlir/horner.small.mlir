// horner, preset small (M=4, D=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/horner.py, not this file.
func.func @horner(%c: memref<5xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %lead = memref.load %c[%c0] : memref<5xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %xi = memref.load %x[%i] : memref<4xf64>
    %p = scf.for %k = %c1 to %c5 step %c1 iter_args(%acc = %lead) -> (f64) {
      %ck = memref.load %c[%k] : memref<5xf64>
      %px = arith.mulf %acc, %xi : f64
      %next = arith.addf %px, %ck : f64
      scf.yield %next : f64
    }
    %t = math.tanh %p : f64
    memref.store %t, %y[%i] : memref<4xf64>
  }
  return
}

func.func @horner_grad(%c: memref<5xf64>, %d_c: memref<5xf64>, %x: memref<4xf64>, %d_x: memref<4xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) {
  enzyme.autodiff @horner(%c, %d_c, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xf64>, memref<5xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
