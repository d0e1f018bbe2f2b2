// depthwise, preset small (C=2, T=5, K=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/depthwise.py, not this file.
func.func @depthwise(%x: memref<2x11xf64>, %w: memref<2x3xf64>, %b: memref<2xf64>, %y: memref<2x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  scf.for %c = %c0 to %c2 step %c1 {
    %bc = memref.load %b[%c] : memref<2xf64>
    scf.for %t = %c0 to %c5 step %c1 {
      %t2 = arith.muli %t, %c2 : index
      %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %bc) -> (f64) {
        %tk = arith.addi %t2, %k : index
        %xv = memref.load %x[%c, %tk] : memref<2x11xf64>
        %wv = memref.load %w[%c, %k] : memref<2x3xf64>
        %p = arith.mulf %wv, %xv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %o = math.tanh %s : f64
      memref.store %o, %y[%c, %t] : memref<2x5xf64>
    }
  }
  return
}

func.func @depthwise_grad(%x: memref<2x11xf64>, %d_x: memref<2x11xf64>, %w: memref<2x3xf64>, %d_w: memref<2x3xf64>, %b: memref<2xf64>, %d_b: memref<2xf64>, %y: memref<2x5xf64>, %d_y: memref<2x5xf64>) {
  enzyme.autodiff @depthwise(%x, %d_x, %w, %d_w, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x11xf64>, memref<2x11xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2xf64>, memref<2xf64>, memref<2x5xf64>, memref<2x5xf64>) -> ()
  return
}
