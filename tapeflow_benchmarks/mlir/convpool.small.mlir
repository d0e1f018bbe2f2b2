// convpool, preset small (CI=2, CO=2, K=2, P=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/convpool.py, not this file.
func.func @convpool(%x: memref<2x5x5xf64>, %w: memref<2x2x2x2xf64>, %b: memref<2xf64>, %y: memref<2x2x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lowest = arith.constant -1.0e300 : f64
  scf.for %o = %c0 to %c2 step %c1 {
    %bo = memref.load %b[%o] : memref<2xf64>
    scf.for %py = %c0 to %c2 step %c1 {
      %y0 = arith.muli %py, %c2 : index
      scf.for %px = %c0 to %c2 step %c1 {
        %x0 = arith.muli %px, %c2 : index
        %m = scf.for %dy = %c0 to %c2 step %c1 iter_args(%my = %lowest) -> (f64) {
          %oy = arith.addi %y0, %dy : index
          %mx = scf.for %dx = %c0 to %c2 step %c1 iter_args(%mw = %my) -> (f64) {
            %ox = arith.addi %x0, %dx : index
            %s = scf.for %c = %c0 to %c2 step %c1 iter_args(%ac = %bo) -> (f64) {
              %sk = scf.for %ky = %c0 to %c2 step %c1 iter_args(%ak = %ac) -> (f64) {
                %iy = arith.addi %oy, %ky : index
                %sx = scf.for %kx = %c0 to %c2 step %c1 iter_args(%acc = %ak) -> (f64) {
                  %ix = arith.addi %ox, %kx : index
                  %wv = memref.load %w[%o, %c, %ky, %kx] : memref<2x2x2x2xf64>
                  %xv = memref.load %x[%c, %iy, %ix] : memref<2x5x5xf64>
                  %p = arith.mulf %wv, %xv : f64
                  %next = arith.addf %acc, %p : f64
                  scf.yield %next : f64
                }
                scf.yield %sx : f64
              }
              scf.yield %sk : f64
            }
            %a = math.tanh %s : f64
            %mn = arith.maximumf %mw, %a : f64
            scf.yield %mn : f64
          }
          scf.yield %mx : f64
        }
        memref.store %m, %y[%o, %py, %px] : memref<2x2x2xf64>
      }
    }
  }
  return
}

func.func @convpool_grad(%x: memref<2x5x5xf64>, %d_x: memref<2x5x5xf64>, %w: memref<2x2x2x2xf64>, %d_w: memref<2x2x2x2xf64>, %b: memref<2xf64>, %d_b: memref<2xf64>, %y: memref<2x2x2xf64>, %d_y: memref<2x2x2xf64>) {
  enzyme.autodiff @convpool(%x, %d_x, %w, %d_w, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x5x5xf64>, memref<2x5x5xf64>, memref<2x2x2x2xf64>, memref<2x2x2x2xf64>, memref<2xf64>, memref<2xf64>, memref<2x2x2xf64>, memref<2x2x2xf64>) -> ()
  return
}
