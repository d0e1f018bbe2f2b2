// trisolv, preset small (N=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/trisolv.py, not this file.
func.func @trisolv(%L: memref<6x6xf64>, %x: memref<6xf64>, %b: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %bi = memref.load %b[%i] : memref<6xf64>
    memref.store %bi, %x[%i] : memref<6xf64>
    scf.for %j = %c0 to %i step %c1 {
      %lij = memref.load %L[%i, %j] : memref<6x6xf64>
      %xj = memref.load %x[%j] : memref<6xf64>
      %p = arith.mulf %lij, %xj : f64
      %xi = memref.load %x[%i] : memref<6xf64>
      %d = arith.subf %xi, %p : f64
      memref.store %d, %x[%i] : memref<6xf64>
    }
    %xi = memref.load %x[%i] : memref<6xf64>
    %lii = memref.load %L[%i, %i] : memref<6x6xf64>
    %q = arith.divf %xi, %lii : f64
    memref.store %q, %x[%i] : memref<6xf64>
  }
  return
}

func.func @trisolv_grad(%L: memref<6x6xf64>, %d_L: memref<6x6xf64>, %x: memref<6xf64>, %d_x: memref<6xf64>, %b: memref<6xf64>, %d_b: memref<6xf64>) {
  enzyme.autodiff @trisolv(%L, %d_L, %x, %d_x, %b, %d_b) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6x6xf64>, memref<6x6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
