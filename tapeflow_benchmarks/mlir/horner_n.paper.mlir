// horner_n, preset paper (M=256, K=33, d=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/horner_n.py, not this file.
func.func @horner_n(%c: memref<?xf64>, %x: memref<256xf64>, %y: memref<256xf64>, %d: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %dp1 = arith.addi %d, %c1 : index
  %lead = memref.load %c[%c0] : memref<?xf64>
  scf.for %i = %c0 to %c256 step %c1 {
    %xi = memref.load %x[%i] : memref<256xf64>
    %p = scf.for %k = %c1 to %dp1 step %c1 iter_args(%acc = %lead) -> (f64) {
      %ck = memref.load %c[%k] : memref<?xf64>
      %px = arith.mulf %acc, %xi : f64
      %next = arith.addf %px, %ck : f64
      scf.yield %next : f64
    }
    %t = math.tanh %p : f64
    memref.store %t, %y[%i] : memref<256xf64>
  }
  return
}

func.func @horner_n_grad(%c: memref<?xf64>, %d_c: memref<?xf64>, %x: memref<256xf64>, %d_x: memref<256xf64>, %y: memref<256xf64>, %d_y: memref<256xf64>, %d: index) {
  enzyme.autodiff @horner_n(%c, %d_c, %x, %d_x, %y, %d_y, %d) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?xf64>, memref<?xf64>, memref<256xf64>, memref<256xf64>, memref<256xf64>, memref<256xf64>, index) -> ()
  return
}
