// ljpair, preset small (N=8, n=7).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/ljpair.py, not this file.
func.func @ljpair(%pos: memref<8x3xf64>, %e: memref<8xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %four = arith.constant 4.0 : f64
  %E = scf.for %i = %c0 to %n step %c1 iter_args(%tot = %zero) -> (f64) {
    %xi = memref.load %pos[%i, %c0] : memref<8x3xf64>
    %yi = memref.load %pos[%i, %c1] : memref<8x3xf64>
    %zi = memref.load %pos[%i, %c2] : memref<8x3xf64>
    %ei = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {
      %xj = memref.load %pos[%j, %c0] : memref<8x3xf64>
      %yj = memref.load %pos[%j, %c1] : memref<8x3xf64>
      %zj = memref.load %pos[%j, %c2] : memref<8x3xf64>
      %dx = arith.subf %xi, %xj : f64
      %dy = arith.subf %yi, %yj : f64
      %dz = arith.subf %zi, %zj : f64
      %dx2 = arith.mulf %dx, %dx : f64
      %dy2 = arith.mulf %dy, %dy : f64
      %dz2 = arith.mulf %dz, %dz : f64
      %dxy = arith.addf %dx2, %dy2 : f64
      %d2 = arith.addf %dxy, %dz2 : f64
      %d4 = arith.mulf %d2, %d2 : f64
      %d6 = arith.mulf %d4, %d2 : f64
      %s6 = arith.divf %one, %d6 : f64
      %s12 = arith.mulf %s6, %s6 : f64
      %diff = arith.subf %s12, %s6 : f64
      %v = arith.mulf %four, %diff : f64
      %next = arith.addf %acc, %v : f64
      scf.yield %next : f64
    }
    memref.store %ei, %e[%i] : memref<8xf64>
    %nt = arith.addf %tot, %ei : f64
    scf.yield %nt : f64
  }
  return %E : f64
}

func.func @ljpair_grad(%pos: memref<8x3xf64>, %d_pos: memref<8x3xf64>, %e: memref<8xf64>, %d_e: memref<8xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @ljpair(%pos, %d_pos, %e, %d_e, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8x3xf64>, memref<8x3xf64>, memref<8xf64>, memref<8xf64>, index, f64) -> f64
  return %r : f64
}
