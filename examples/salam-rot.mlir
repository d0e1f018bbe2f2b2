// A second read-modify-write chain in a fully unrolled block, with another body
// than salam-rmw.mlir: BLAS's plane rotation, drot (reference BLAS `drot.f`,
// netlib.org/blas; Lawson, Hanson, Kincaid and Krogh, "Basic Linear Algebra
// Subprograms for Fortran Usage", ACM TOMS 5(3), 1979), applied in place and
// repeated: for each rotation (c, s) = (c[r][t], s[r][t]),
//   tmp = c*x[j] + s*y[j];  y[j] = c*y[j] - s*x[j];  x[j] = tmp
// with the j loop unrolled 16 times before differentiation:
//   tapeflow-opt examples/salam-rot.mlir -p tapeflow-unroll-primal -o rot.mlir
// Each copy loads x[j] and y[j] and stores both: two loads behind the two stores
// of the copy before it. The loss is x . y; the gradient reaches the rotations'
// c and s, so it keeps the old x[j] and y[j] of every update (a tape).
func.func @rot(%x: memref<16xf64>, %y: memref<16xf64>, %c: memref<4x32xf64>,
               %s: memref<4x32xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %t = %c0 to %c32 step %c1 {
      %ct = memref.load %c[%r, %t] : memref<4x32xf64>
      %st = memref.load %s[%r, %t] : memref<4x32xf64>
      scf.for %j = %c0 to %c16 step %c1 {
        %xj = memref.load %x[%j] : memref<16xf64>
        %yj = memref.load %y[%j] : memref<16xf64>
        %cx = arith.mulf %ct, %xj : f64
        %sy = arith.mulf %st, %yj : f64
        %tmp = arith.addf %cx, %sy : f64
        %cy = arith.mulf %ct, %yj : f64
        %sx = arith.mulf %st, %xj : f64
        %ny = arith.subf %cy, %sx : f64
        memref.store %ny, %y[%j] : memref<16xf64>
        memref.store %tmp, %x[%j] : memref<16xf64>
      } {tapeflow.unroll = 16 : i64}
    }
  }
  %d = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xj = memref.load %x[%j] : memref<16xf64>
    %yj = memref.load %y[%j] : memref<16xf64>
    %p = arith.mulf %xj, %yj : f64
    %a = arith.addf %acc, %p : f64
    scf.yield %a : f64
  }
  return %d : f64
}

func.func @rot_grad(%x: memref<16xf64>, %dx: memref<16xf64>, %y: memref<16xf64>,
                    %dy: memref<16xf64>, %c: memref<4x32xf64>, %dc: memref<4x32xf64>,
                    %s: memref<4x32xf64>, %ds: memref<4x32xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @rot(%x, %dx, %y, %dy, %c, %dc, %s, %ds, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<4x32xf64>, memref<4x32xf64>, memref<4x32xf64>, memref<4x32xf64>, f64) -> f64
  return %r : f64
}
