// upconv, preset small (C=2, L=4, K=3, S=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/upconv.py, not this file.
func.func @upconv(%x: memref<2x4xf64>, %W: memref<2x2x3xf64>, %bias: memref<2xf64>, %y: memref<2x9xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %step = arith.constant 2 : index
  %off = arith.constant -1 : index
  scf.for %co = %c0 to %c2 step %c1 {
    %b = memref.load %bias[%co] : memref<2xf64>
    scf.for %o = %c0 to %c9 step %c1 {
      %num = arith.addi %o, %off : index
      %numc = arith.maxsi %num, %c0 : index
      %lo = arith.divui %numc, %step : index
      %q = arith.divui %o, %step : index
      %q1 = arith.addi %q, %c1 : index
      %hi = arith.minsi %q1, %c4 : index
      %s = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %b) -> (f64) {
        %si = arith.muli %i, %step : index
        %kk = arith.subi %o, %si : index
        %r = scf.for %ci = %c0 to %c2 step %c1 iter_args(%a2 = %acc) -> (f64) {
          %w = memref.load %W[%ci, %co, %kk] : memref<2x2x3xf64>
          %xv = memref.load %x[%ci, %i] : memref<2x4xf64>
          %wx = arith.mulf %w, %xv : f64
          %wxx = arith.mulf %wx, %xv : f64
          %next = arith.addf %a2, %wxx : f64
          scf.yield %next : f64
        }
        scf.yield %r : f64
      }
      %t = math.tanh %s : f64
      memref.store %t, %y[%co, %o] : memref<2x9xf64>
    }
  }
  return
}

func.func @upconv_grad(%x: memref<2x4xf64>, %d_x: memref<2x4xf64>, %W: memref<2x2x3xf64>, %d_W: memref<2x2x3xf64>, %bias: memref<2xf64>, %d_bias: memref<2xf64>, %y: memref<2x9xf64>, %d_y: memref<2x9xf64>) {
  enzyme.autodiff @upconv(%x, %d_x, %W, %d_W, %bias, %d_bias, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x4xf64>, memref<2x4xf64>, memref<2x2x3xf64>, memref<2x2x3xf64>, memref<2xf64>, memref<2xf64>, memref<2x9xf64>, memref<2x9xf64>) -> ()
  return
}
