// conv2d, preset paper (H=24, W=24, K=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/conv2d.py, not this file.
func.func @conv2d(%x: memref<26x26xf64>, %w: memref<3x3xf64>, %y: memref<24x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c24 = arith.constant 24 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c24 step %c1 {
    scf.for %j = %c0 to %c24 step %c1 {
      %s = scf.for %a = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %ia = arith.addi %i, %a : index
        %row = scf.for %b = %c0 to %c3 step %c1 iter_args(%in = %acc) -> (f64) {
          %jb = arith.addi %j, %b : index
          %xv = memref.load %x[%ia, %jb] : memref<26x26xf64>
          %wv = memref.load %w[%a, %b] : memref<3x3xf64>
          %p = arith.mulf %wv, %xv : f64
          %next = arith.addf %in, %p : f64
          scf.yield %next : f64
        }
        scf.yield %row : f64
      }
      %t = math.tanh %s : f64
      memref.store %t, %y[%i, %j] : memref<24x24xf64>
    }
  }
  return
}

func.func @conv2d_grad(%x: memref<26x26xf64>, %d_x: memref<26x26xf64>, %w: memref<3x3xf64>, %d_w: memref<3x3xf64>, %y: memref<24x24xf64>, %d_y: memref<24x24xf64>) {
  enzyme.autodiff @conv2d(%x, %d_x, %w, %d_w, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<26x26xf64>, memref<26x26xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<24x24xf64>, memref<24x24xf64>) -> ()
  return
}
