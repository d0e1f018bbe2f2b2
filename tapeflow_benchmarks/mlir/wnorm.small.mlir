// wnorm, preset small (O=2, K=3, B=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/wnorm.py, not this file.
func.func @wnorm(%v: memref<2x3xf64>, %g: memref<2xf64>, %x: memref<3x3xf64>, %y: memref<3x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  scf.for %o = %c0 to %c2 step %c1 {
    %n = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %vv = memref.load %v[%o, %k] : memref<2x3xf64>
      %sq = arith.mulf %vv, %vv : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %norm = math.sqrt %n : f64
    %go = memref.load %g[%o] : memref<2xf64>
    %sc = arith.divf %go, %norm : f64
    scf.for %b = %c0 to %c3 step %c1 {
      %d = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %vv = memref.load %v[%o, %k] : memref<2x3xf64>
        %xv = memref.load %x[%b, %k] : memref<3x3xf64>
        %p = arith.mulf %vv, %xv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %z = arith.mulf %sc, %d : f64
      %act = math.tanh %z : f64
      memref.store %act, %y[%b, %o] : memref<3x2xf64>
    }
  }
  return
}

func.func @wnorm_grad(%v: memref<2x3xf64>, %d_v: memref<2x3xf64>, %g: memref<2xf64>, %d_g: memref<2xf64>, %x: memref<3x3xf64>, %d_x: memref<3x3xf64>, %y: memref<3x2xf64>, %d_y: memref<3x2xf64>) {
  enzyme.autodiff @wnorm(%v, %d_v, %g, %d_g, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x3xf64>, memref<2x3xf64>, memref<2xf64>, memref<2xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<3x2xf64>, memref<3x2xf64>) -> ()
  return
}
