// A two-layer perceptron as a user writes it in C, with its hidden activations
// in a buffer it allocates and frees (the pattern of Darknet's
// `forward_connected_layer` chained through a malloc'd output, src/connected_layer.c):
// `h = malloc(H); h = tanh(W1 x + b1); y = W2 h; free(h)`, as memref.alloc and
// memref.dealloc (Enzyme-MLIR has no adjoint for the dealloc; tapeflow-enzyme drops
// it before Enzyme). Written anew.
func.func @f(%x: memref<4xf64>, %w1: memref<3x4xf64>, %b1: memref<3xf64>, %w2: memref<2x3xf64>, %y: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %h = memref.alloc() : memref<3xf64>
  scf.for %i = %c0 to %c3 step %c1 {
    %bias = memref.load %b1[%i] : memref<3xf64>
    %pre = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %bias) -> (f64) {
      %wv = memref.load %w1[%i, %k] : memref<3x4xf64>
      %xv = memref.load %x[%k] : memref<4xf64>
      %p = arith.mulf %wv, %xv : f64
      %acc2 = arith.addf %acc, %p : f64
      scf.yield %acc2 : f64
    }
    %act = math.tanh %pre : f64
    memref.store %act, %h[%i] : memref<3xf64>
  }
  scf.for %o = %c0 to %c2 step %c1 {
    %out = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %wv = memref.load %w2[%o, %i] : memref<2x3xf64>
      %hv = memref.load %h[%i] : memref<3xf64>
      %p = arith.mulf %wv, %hv : f64
      %acc2 = arith.addf %acc, %p : f64
      scf.yield %acc2 : f64
    }
    memref.store %out, %y[%o] : memref<2xf64>
  }
  memref.dealloc %h : memref<3xf64>
  return
}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>, %w1: memref<3x4xf64>, %dw1: memref<3x4xf64>, %b1: memref<3xf64>, %db1: memref<3xf64>, %w2: memref<2x3xf64>, %dw2: memref<2x3xf64>, %y: memref<2xf64>, %dy: memref<2xf64>) {
  enzyme.autodiff @f(%x, %dx, %w1, %dw1, %b1, %db1, %w2, %dw2, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3xf64>, memref<3xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<2xf64>, memref<2xf64>) -> ()
  return
}
