// gcn, preset small (N=5, F=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gcn.py, not this file.
func.func @gcn(%ptr: memref<6xindex>, %col: memref<14xindex>, %w: memref<14xf64>, %x: memref<5x3xf64>, %b: memref<3xf64>, %y: memref<5x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c5 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %ptr[%i] : memref<6xindex>
    %hi = memref.load %ptr[%i1] : memref<6xindex>
    %q = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %one) -> (f64) {
      %wk = memref.load %w[%k] : memref<14xf64>
      %next = arith.addf %acc, %wk : f64
      scf.yield %next : f64
    }
    %nrm = math.sqrt %q : f64
    %di = arith.divf %one, %nrm : f64
    scf.for %k = %lo to %hi step %c1 {
      %j = memref.load %col[%k] : memref<14xindex>
      %wk = memref.load %w[%k] : memref<14xf64>
      %c = arith.mulf %wk, %di : f64
      scf.for %f = %c0 to %c3 step %c1 {
        %xv = memref.load %x[%j, %f] : memref<5x3xf64>
        %h = memref.load %y[%i, %f] : memref<5x3xf64>
        %m = arith.mulf %c, %xv : f64
        %h2 = arith.addf %h, %m : f64
        memref.store %h2, %y[%i, %f] : memref<5x3xf64>
      }
    }
    %dd = arith.mulf %di, %di : f64
    scf.for %f = %c0 to %c3 step %c1 {
      %h = memref.load %y[%i, %f] : memref<5x3xf64>
      %xs = memref.load %x[%i, %f] : memref<5x3xf64>
      %bf = memref.load %b[%f] : memref<3xf64>
      %sl = arith.mulf %dd, %xs : f64
      %z0 = arith.addf %h, %sl : f64
      %z = arith.addf %z0, %bf : f64
      %t = math.tanh %z : f64
      memref.store %t, %y[%i, %f] : memref<5x3xf64>
    }
  }
  return
}

func.func @gcn_grad(%ptr: memref<6xindex>, %col: memref<14xindex>, %w: memref<14xf64>, %d_w: memref<14xf64>, %x: memref<5x3xf64>, %d_x: memref<5x3xf64>, %b: memref<3xf64>, %d_b: memref<3xf64>, %y: memref<5x3xf64>, %d_y: memref<5x3xf64>) {
  enzyme.autodiff @gcn(%ptr, %col, %w, %d_w, %x, %d_x, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6xindex>, memref<14xindex>, memref<14xf64>, memref<14xf64>, memref<5x3xf64>, memref<5x3xf64>, memref<3xf64>, memref<3xf64>, memref<5x3xf64>, memref<5x3xf64>) -> ()
  return
}
