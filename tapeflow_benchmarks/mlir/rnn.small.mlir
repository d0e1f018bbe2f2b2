// rnn, preset small (T=3, H=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rnn.py, not this file.
func.func @rnn(%W: memref<4x4xf64>, %U: memref<4xf64>, %x: memref<3xf64>, %h: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %t = %c0 to %c3 step %c1 {
    %xt = memref.load %x[%t] : memref<3xf64>
    %t1 = arith.addi %t, %c1 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %ui = memref.load %U[%i] : memref<4xf64>
      %in = arith.mulf %ui, %xt : f64
      %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %in) -> (f64) {
        %wv = memref.load %W[%i, %j] : memref<4x4xf64>
        %hv = memref.load %h[%t, %j] : memref<4x4xf64>
        %p = arith.mulf %wv, %hv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %a = math.tanh %s : f64
      memref.store %a, %h[%t1, %i] : memref<4x4xf64>
    }
  }
  return
}

func.func @rnn_grad(%W: memref<4x4xf64>, %d_W: memref<4x4xf64>, %U: memref<4xf64>, %d_U: memref<4xf64>, %x: memref<3xf64>, %d_x: memref<3xf64>, %h: memref<4x4xf64>, %d_h: memref<4x4xf64>) {
  enzyme.autodiff @rnn(%W, %d_W, %U, %d_U, %x, %d_x, %h, %d_h) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x4xf64>, memref<4x4xf64>, memref<4xf64>, memref<4xf64>, memref<3xf64>, memref<3xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
