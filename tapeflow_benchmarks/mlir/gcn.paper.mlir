// gcn, preset paper (N=192, F=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gcn.py, not this file.
func.func @gcn(%ptr: memref<193xindex>, %col: memref<1339xindex>, %w: memref<1339xf64>, %x: memref<192x16xf64>, %b: memref<16xf64>, %y: memref<192x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c192 = arith.constant 192 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c192 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %ptr[%i] : memref<193xindex>
    %hi = memref.load %ptr[%i1] : memref<193xindex>
    %q = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %one) -> (f64) {
      %wk = memref.load %w[%k] : memref<1339xf64>
      %next = arith.addf %acc, %wk : f64
      scf.yield %next : f64
    }
    %nrm = math.sqrt %q : f64
    %di = arith.divf %one, %nrm : f64
    scf.for %k = %lo to %hi step %c1 {
      %j = memref.load %col[%k] : memref<1339xindex>
      %wk = memref.load %w[%k] : memref<1339xf64>
      %c = arith.mulf %wk, %di : f64
      scf.for %f = %c0 to %c16 step %c1 {
        %xv = memref.load %x[%j, %f] : memref<192x16xf64>
        %h = memref.load %y[%i, %f] : memref<192x16xf64>
        %m = arith.mulf %c, %xv : f64
        %h2 = arith.addf %h, %m : f64
        memref.store %h2, %y[%i, %f] : memref<192x16xf64>
      }
    }
    %dd = arith.mulf %di, %di : f64
    scf.for %f = %c0 to %c16 step %c1 {
      %h = memref.load %y[%i, %f] : memref<192x16xf64>
      %xs = memref.load %x[%i, %f] : memref<192x16xf64>
      %bf = memref.load %b[%f] : memref<16xf64>
      %sl = arith.mulf %dd, %xs : f64
      %z0 = arith.addf %h, %sl : f64
      %z = arith.addf %z0, %bf : f64
      %t = math.tanh %z : f64
      memref.store %t, %y[%i, %f] : memref<192x16xf64>
    }
  }
  return
}

func.func @gcn_grad(%ptr: memref<193xindex>, %col: memref<1339xindex>, %w: memref<1339xf64>, %d_w: memref<1339xf64>, %x: memref<192x16xf64>, %d_x: memref<192x16xf64>, %b: memref<16xf64>, %d_b: memref<16xf64>, %y: memref<192x16xf64>, %d_y: memref<192x16xf64>) {
  enzyme.autodiff @gcn(%ptr, %col, %w, %d_w, %x, %d_x, %b, %d_b, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<193xindex>, memref<1339xindex>, memref<1339xf64>, memref<1339xf64>, memref<192x16xf64>, memref<192x16xf64>, memref<16xf64>, memref<16xf64>, memref<192x16xf64>, memref<192x16xf64>) -> ()
  return
}
