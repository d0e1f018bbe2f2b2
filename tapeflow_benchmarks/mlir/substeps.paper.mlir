// substeps, preset paper (P=640).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/substeps.py, not this file.
func.func @substeps(%vel: memref<640xf64>, %c: memref<640xf64>, %pos: memref<640xf64>, %w: memref<640xf64>, %e: memref<640xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c640 = arith.constant 640 : index
  %ratio = arith.constant 5.000000e+00 : f64
  %dt = arith.constant 5.000000e-01 : f64
  scf.for %p = %c0 to %c640 step %c1 {
    %v = memref.load %vel[%p] : memref<640xf64>
    %av = math.absf %v : f64
    %q = arith.mulf %av, %ratio : f64
    %qi = arith.fptosi %q : f64 to i64
    %m0 = arith.index_cast %qi : i64 to index
    %m = arith.addi %m0, %c1 : index
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f64
    %h = arith.divf %dt, %mf : f64
    %cp = memref.load %c[%p] : memref<640xf64>
    %x0 = memref.load %pos[%p] : memref<640xf64>
    %x = scf.for %t = %c0 to %m step %c1 iter_args(%xa = %x0) -> (f64) {
      %xv = arith.mulf %xa, %v : f64
      %th = math.tanh %xv : f64
      %xc = arith.mulf %xa, %cp : f64
      %a = arith.subf %th, %xc : f64
      %ha = arith.mulf %h, %a : f64
      %xn = arith.addf %xa, %ha : f64
      %wp = memref.load %w[%p] : memref<640xf64>
      %x2 = arith.mulf %xn, %xn : f64
      %wn = arith.addf %wp, %x2 : f64
      memref.store %wn, %w[%p] : memref<640xf64>
      scf.yield %xn : f64
    }
    memref.store %x, %pos[%p] : memref<640xf64>
    %wf = memref.load %w[%p] : memref<640xf64>
    %wm = arith.divf %wf, %mf : f64
    %nw = arith.negf %wm : f64
    %en = math.exp %nw : f64
    memref.store %en, %e[%p] : memref<640xf64>
  }
  return
}

func.func @substeps_grad(%vel: memref<640xf64>, %d_vel: memref<640xf64>, %c: memref<640xf64>, %d_c: memref<640xf64>, %pos: memref<640xf64>, %d_pos: memref<640xf64>, %w: memref<640xf64>, %d_w: memref<640xf64>, %e: memref<640xf64>, %d_e: memref<640xf64>) {
  enzyme.autodiff @substeps(%vel, %d_vel, %c, %d_c, %pos, %d_pos, %w, %d_w, %e, %d_e) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>, memref<640xf64>) -> ()
  return
}
