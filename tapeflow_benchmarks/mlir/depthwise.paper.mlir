// depthwise, preset paper (C=16, T=64, K=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/depthwise.py, not this file.
func.func @depthwise(%x: memref<16x131xf64>, %w: memref<16x5xf64>, %b: memref<16xf64>, %y: memref<16x64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %c = %c0 to %c16 step %c1 {
    %bc = memref.load %b[%c] : memref<16xf64>
    scf.for %t = %c0 to %c64 step %c1 {
      %t2 = arith.muli %t, %c2 : index
      %s = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %bc) -> (f64) {
        %tk = arith.addi %t2, %k : index
        %xv = memref.load %x[%c, %tk] : memref<16x131xf64>
        %wv = memref.load %w[%c, %k] : memref<16x5xf64>
        %p = arith.mulf %wv, %xv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %o = math.tanh %s : f64
      memref.store %o, %y[%c, %t] : memref<16x64xf64>
    }
  }
  return
}

func.func @depthwise_grad(%x: memref<16x131xf64>, %d_x: memref<16x131xf64>, %w: memref<16x5xf64>, %d_w: memref<16x5xf64>, %b: memref<16xf64>, %d_b: memref<16xf64>, %y: memref<16x64xf64>, %d_y: memref<16x64xf64>) {
  enzyme.autodiff @depthwise(%x, %d_x, %w, %d_w, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<16x131xf64>, memref<16x131xf64>, memref<16x5xf64>, memref<16x5xf64>, memref<16xf64>, memref<16xf64>, memref<16x64xf64>, memref<16x64xf64>) -> ()
  return
}
