// nbgroup, preset small (P=6).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/nbgroup.py, not this file.
func.func @nbgroup(%nptr: memref<7xindex>, %nbr: memref<25xindex>, %mask: memref<6xindex>, %X: memref<6x2xf64>, %q: memref<6xf64>, %m: memref<6xf64>, %A: memref<6x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %eps = arith.constant 0.01 : f64
  scf.for %p = %c0 to %c6 step %c1 {
    %mk = memref.load %mask[%p] : memref<6xindex>
    %bit = arith.andi %mk, %c2 : index
    %in = arith.cmpi ne, %bit, %c0 : index
    scf.if %in {
    %p1 = arith.addi %p, %c1 : index
    %lo = memref.load %nptr[%p] : memref<7xindex>
    %hi = memref.load %nptr[%p1] : memref<7xindex>
    %mp = memref.load %m[%p] : memref<6xf64>
    %invm = arith.divf %one, %mp : f64
    %xp = memref.load %X[%p, %c0] : memref<6x2xf64>
    %yp = memref.load %X[%p, %c1] : memref<6x2xf64>
    %f:2 = scf.for %k = %lo to %hi step %c1 iter_args(%fx = %zero, %fy = %zero)
        -> (f64, f64) {
      %j = memref.load %nbr[%k] : memref<25xindex>
      %xj = memref.load %X[%j, %c0] : memref<6x2xf64>
      %yj = memref.load %X[%j, %c1] : memref<6x2xf64>
      %dx = arith.subf %xj, %xp : f64
      %dy = arith.subf %yj, %yp : f64
      %dx2 = arith.mulf %dx, %dx : f64
      %dy2 = arith.mulf %dy, %dy : f64
      %d2 = arith.addf %dx2, %dy2 : f64
      %r2 = arith.addf %d2, %eps : f64
      %r = math.sqrt %r2 : f64
      %r3 = arith.mulf %r2, %r : f64
      %qj = memref.load %q[%j] : memref<6xf64>
      %w = arith.divf %qj, %r3 : f64
      %gx = arith.mulf %dx, %w : f64
      %gy = arith.mulf %dy, %w : f64
      %nfx = arith.addf %fx, %gx : f64
      %nfy = arith.addf %fy, %gy : f64
      scf.yield %nfx, %nfy : f64, f64
    }
    %qp = memref.load %q[%p] : memref<6xf64>
    %qm = arith.mulf %qp, %invm : f64
    %ax = arith.mulf %f#0, %qm : f64
    %ay = arith.mulf %f#1, %qm : f64
    memref.store %ax, %A[%p, %c0] : memref<6x2xf64>
    memref.store %ay, %A[%p, %c1] : memref<6x2xf64>
    }
  }
  return
}

func.func @nbgroup_grad(%nptr: memref<7xindex>, %nbr: memref<25xindex>, %mask: memref<6xindex>, %X: memref<6x2xf64>, %d_X: memref<6x2xf64>, %q: memref<6xf64>, %d_q: memref<6xf64>, %m: memref<6xf64>, %d_m: memref<6xf64>, %A: memref<6x2xf64>, %d_A: memref<6x2xf64>) {
  enzyme.autodiff @nbgroup(%nptr, %nbr, %mask, %X, %d_X, %q, %d_q, %m, %d_m, %A, %d_A) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<7xindex>, memref<25xindex>, memref<6xindex>, memref<6x2xf64>, memref<6x2xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6x2xf64>, memref<6x2xf64>) -> ()
  return
}
