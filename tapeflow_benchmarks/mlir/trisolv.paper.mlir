// trisolv, preset paper (N=96).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/trisolv.py, not this file.
func.func @trisolv(%L: memref<96x96xf64>, %x: memref<96xf64>, %b: memref<96xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  scf.for %i = %c0 to %c96 step %c1 {
    %bi = memref.load %b[%i] : memref<96xf64>
    memref.store %bi, %x[%i] : memref<96xf64>
    scf.for %j = %c0 to %i step %c1 {
      %lij = memref.load %L[%i, %j] : memref<96x96xf64>
      %xj = memref.load %x[%j] : memref<96xf64>
      %p = arith.mulf %lij, %xj : f64
      %xi = memref.load %x[%i] : memref<96xf64>
      %d = arith.subf %xi, %p : f64
      memref.store %d, %x[%i] : memref<96xf64>
    }
    %xi = memref.load %x[%i] : memref<96xf64>
    %lii = memref.load %L[%i, %i] : memref<96x96xf64>
    %q = arith.divf %xi, %lii : f64
    memref.store %q, %x[%i] : memref<96xf64>
  }
  return
}

func.func @trisolv_grad(%L: memref<96x96xf64>, %d_L: memref<96x96xf64>, %x: memref<96xf64>, %d_x: memref<96xf64>, %b: memref<96xf64>, %d_b: memref<96xf64>) {
  enzyme.autodiff @trisolv(%L, %d_L, %x, %d_x, %b, %d_b) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<96x96xf64>, memref<96x96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>) -> ()
  return
}
