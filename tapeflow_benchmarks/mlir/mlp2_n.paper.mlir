// mlp2_n, preset paper (N=32, n=32, K=32, H=16, O=10).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mlp2_n.py, not this file.
func.func @mlp2_n(%x: memref<?x?xf64>, %W1: memref<16x32xf64>, %b1: memref<16xf64>, %W2: memref<10x16xf64>, %b2: memref<10xf64>, %h: memref<16xf64>, %y: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.for %b = %c0 to %n step %c1 {
    scf.for %i = %c0 to %c16 step %c1 {
      %bi = memref.load %b1[%i] : memref<16xf64>
      %s = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %bi) -> (f64) {
        %w = memref.load %W1[%i, %k] : memref<16x32xf64>
        %xv = memref.load %x[%b, %k] : memref<?x?xf64>
        %p = arith.mulf %w, %xv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %t = math.tanh %s : f64
      memref.store %t, %h[%i] : memref<16xf64>
    }
    scf.for %o = %c0 to %c10 step %c1 {
      %bo = memref.load %b2[%o] : memref<10xf64>
      %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %bo) -> (f64) {
        %w = memref.load %W2[%o, %i] : memref<10x16xf64>
        %hv = memref.load %h[%i] : memref<16xf64>
        %p = arith.mulf %w, %hv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %s, %y[%b, %o] : memref<?x?xf64>
    }
  }
  return
}

func.func @mlp2_n_grad(%x: memref<?x?xf64>, %d_x: memref<?x?xf64>, %W1: memref<16x32xf64>, %d_W1: memref<16x32xf64>, %b1: memref<16xf64>, %d_b1: memref<16xf64>, %W2: memref<10x16xf64>, %d_W2: memref<10x16xf64>, %b2: memref<10xf64>, %d_b2: memref<10xf64>, %h: memref<16xf64>, %d_h: memref<16xf64>, %y: memref<?x?xf64>, %d_y: memref<?x?xf64>, %n: index) {
  enzyme.autodiff @mlp2_n(%x, %d_x, %W1, %d_W1, %b1, %d_b1, %W2, %d_W2, %b2, %d_b2, %h, %d_h, %y, %d_y, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<16x32xf64>, memref<16x32xf64>, memref<16xf64>, memref<16xf64>, memref<10x16xf64>, memref<10x16xf64>, memref<10xf64>, memref<10xf64>, memref<16xf64>, memref<16xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}
