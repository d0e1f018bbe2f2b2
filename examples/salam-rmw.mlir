// A read-modify-write chain in a fully unrolled block, for the `salam` model's
// load ordering (docs/research/salam-model.md, "A read-modify-write chain"):
// the update of BLAS's daxpy, y := a*x + y (Lawson, Hanson, Kincaid and Krogh,
// "Basic Linear Algebra Subprograms for Fortran Usage", ACM TOMS 5(3), 1979),
// done in place and repeated, y[j] <- y[j] * x[r][t][j] + 0.5, with the j loop
// unrolled 16 times before differentiation:
//   tapeflow-opt examples/salam-rmw.mlir -p tapeflow-unroll-primal -o rmw.mlir
// Each copy loads y[j], which the copy before it stored to another element: the
// authors' simulator orders a load after the stores before it whatever they
// write. The gradient keeps the old y[j] of every update (a tape).
func.func @rmw(%y: memref<16xf64>, %x: memref<4x32x16xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant 0.5 : f64
  %zero = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %t = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %yj = memref.load %y[%j] : memref<16xf64>
        %xj = memref.load %x[%r, %t, %j] : memref<4x32x16xf64>
        %p = arith.mulf %yj, %xj : f64
        %n = arith.addf %p, %half : f64
        memref.store %n, %y[%j] : memref<16xf64>
      } {tapeflow.unroll = 16 : i64}
    }
  }
  %s = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %y[%j] : memref<16xf64>
    %a = arith.addf %acc, %v : f64
    scf.yield %a : f64
  }
  return %s : f64
}

func.func @rmw_grad(%y: memref<16xf64>, %dy: memref<16xf64>, %x: memref<4x32x16xf64>,
                    %dx: memref<4x32x16xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @rmw(%y, %dy, %x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<16xf64>, memref<16xf64>, memref<4x32x16xf64>, memref<4x32x16xf64>, f64) -> f64
  return %r : f64
}
