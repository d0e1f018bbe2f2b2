// horner, preset paper (M=256, D=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/horner.py, not this file.
func.func @horner(%c: memref<33xf64>, %x: memref<256xf64>, %y: memref<256xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c33 = arith.constant 33 : index
  %c256 = arith.constant 256 : index
  %lead = memref.load %c[%c0] : memref<33xf64>
  scf.for %i = %c0 to %c256 step %c1 {
    %xi = memref.load %x[%i] : memref<256xf64>
    %p = scf.for %k = %c1 to %c33 step %c1 iter_args(%acc = %lead) -> (f64) {
      %ck = memref.load %c[%k] : memref<33xf64>
      %px = arith.mulf %acc, %xi : f64
      %next = arith.addf %px, %ck : f64
      scf.yield %next : f64
    }
    %t = math.tanh %p : f64
    memref.store %t, %y[%i] : memref<256xf64>
  }
  return
}

func.func @horner_grad(%c: memref<33xf64>, %d_c: memref<33xf64>, %x: memref<256xf64>, %d_x: memref<256xf64>, %y: memref<256xf64>, %d_y: memref<256xf64>) {
  enzyme.autodiff @horner(%c, %d_c, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<33xf64>, memref<33xf64>, memref<256xf64>, memref<256xf64>, memref<256xf64>, memref<256xf64>) -> ()
  return
}
