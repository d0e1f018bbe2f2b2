// pic, preset paper (P=2048, G=256).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/pic.py, not this file.
func.func @pic(%x: memref<2048xf64>, %q: memref<2048xf64>, %rho: memref<256xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %tq = arith.constant 0.75 : f64
  %th = arith.constant 1.5 : f64
  scf.for %p = %c0 to %c2048 step %c1 {
    %s = memref.load %x[%p] : memref<2048xf64>
    %qp = memref.load %q[%p] : memref<2048xf64>
    %sh = arith.addf %s, %half : f64
    %ci = arith.fptosi %sh : f64 to i64
    %c = arith.index_cast %ci : i64 to index
    %cm = arith.subi %c, %c1 : index
    scf.for %m = %c0 to %c3 step %c1 {
      %g = arith.addi %cm, %m : index
      %gi = arith.index_cast %g : index to i64
      %gf = arith.sitofp %gi : i64 to f64
      %r = arith.subf %s, %gf : f64
      %a = math.absf %r : f64
      %r2 = arith.mulf %r, %r : f64
      %win = arith.subf %tq, %r2 : f64
      %b = arith.subf %th, %a : f64
      %b2 = arith.mulf %b, %b : f64
      %wout = arith.mulf %half, %b2 : f64
      %near = arith.cmpf olt, %a, %half : f64
      %w = arith.select %near, %win, %wout : f64
      %qw = arith.mulf %qp, %w : f64
      %old = memref.load %rho[%g] : memref<256xf64>
      %new = arith.addf %old, %qw : f64
      memref.store %new, %rho[%g] : memref<256xf64>
    }
  }
  %e = scf.for %g = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %rho[%g] : memref<256xf64>
    %v2 = arith.mulf %v, %v : f64
    %next = arith.addf %acc, %v2 : f64
    scf.yield %next : f64
  }
  return %e : f64
}

func.func @pic_grad(%x: memref<2048xf64>, %d_x: memref<2048xf64>, %q: memref<2048xf64>, %d_q: memref<2048xf64>, %rho: memref<256xf64>, %d_rho: memref<256xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @pic(%x, %d_x, %q, %d_q, %rho, %d_rho, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<2048xf64>, memref<2048xf64>, memref<2048xf64>, memref<2048xf64>, memref<256xf64>, memref<256xf64>, f64) -> f64
  return %r : f64
}
