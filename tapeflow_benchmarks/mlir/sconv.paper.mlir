// sconv, preset paper (B=8, b=8, CI=4, CO=8, K=3, P=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/sconv.py, not this file.
func.func @sconv(%x: memref<8x4x33xf64>, %w: memref<8x4x3xf64>, %bias: memref<8xf64>, %y: memref<8x8x16xf64>, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %gc = arith.constant 0.7978845608028654 : f64
  %ga = arith.constant 0.044715 : f64
  scf.for %n = %c0 to %b step %c1 {
    scf.for %o = %c0 to %c8 step %c1 {
      %bo = memref.load %bias[%o] : memref<8xf64>
      scf.for %p = %c0 to %c16 step %c1 {
        %p2 = arith.muli %p, %c2 : index
        %z = scf.for %c = %c0 to %c4 step %c1 iter_args(%zc = %bo) -> (f64) {
          %zk = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %zc) -> (f64) {
            %at = arith.addi %p2, %t : index
            %xv = memref.load %x[%n, %c, %at] : memref<8x4x33xf64>
            %wv = memref.load %w[%o, %c, %t] : memref<8x4x3xf64>
            %prod = arith.mulf %wv, %xv : f64
            %next = arith.addf %acc, %prod : f64
            scf.yield %next : f64
          }
          scf.yield %zk : f64
        }
        %z2 = arith.mulf %z, %z : f64
        %z3 = arith.mulf %z2, %z : f64
        %cub = arith.mulf %ga, %z3 : f64
        %inner = arith.addf %z, %cub : f64
        %arg = arith.mulf %gc, %inner : f64
        %th = math.tanh %arg : f64
        %th1 = arith.addf %one, %th : f64
        %hz = arith.mulf %half, %z : f64
        %g = arith.mulf %hz, %th1 : f64
        memref.store %g, %y[%n, %o, %p] : memref<8x8x16xf64>
      }
    }
  }
  return
}

func.func @sconv_grad(%x: memref<8x4x33xf64>, %d_x: memref<8x4x33xf64>, %w: memref<8x4x3xf64>, %d_w: memref<8x4x3xf64>, %bias: memref<8xf64>, %d_bias: memref<8xf64>, %y: memref<8x8x16xf64>, %d_y: memref<8x8x16xf64>, %b: index) {
  enzyme.autodiff @sconv(%x, %d_x, %w, %d_w, %bias, %d_bias, %y, %d_y, %b) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<8x4x33xf64>, memref<8x4x33xf64>, memref<8x4x3xf64>, memref<8x4x3xf64>, memref<8xf64>, memref<8xf64>, memref<8x8x16xf64>, memref<8x8x16xf64>, index) -> ()
  return
}
