// sph, preset paper (NB=48, n=48).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/sph.py, not this file.
func.func @sph(%x: memref<48x3xf64>, %m: memref<48xf64>, %dens: memref<48xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %a2 = arith.constant 1.5 : f64
  %a3 = arith.constant 0.75 : f64
  %b3 = arith.constant 0.25 : f64
  %eta2 = arith.constant 0.01 : f64
  %invh = arith.constant 1.0 : f64
  %sigma = arith.constant 0.3183098861837907 : f64
  scf.for %i = %c0 to %n step %c1 {
    %rho = scf.for %j = %c0 to %n step %c1 iter_args(%racc = %zero) -> (f64) {
      %r2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %xi = memref.load %x[%i, %k] : memref<48x3xf64>
        %xj = memref.load %x[%j, %k] : memref<48x3xf64>
        %d = arith.subf %xi, %xj : f64
        %dd = arith.mulf %d, %d : f64
        %next = arith.addf %acc, %dd : f64
        scf.yield %next : f64
      }
      %soft = arith.addf %r2, %eta2 : f64
      %r = math.sqrt %soft : f64
      %q = arith.mulf %r, %invh : f64
      %qq = arith.mulf %q, %q : f64
      %qqq = arith.mulf %qq, %q : f64
      %t2 = arith.mulf %a2, %qq : f64
      %t3 = arith.mulf %a3, %qqq : f64
      %w1a = arith.subf %one, %t2 : f64
      %w1 = arith.addf %w1a, %t3 : f64
      %tq = arith.subf %two, %q : f64
      %tq2 = arith.mulf %tq, %tq : f64
      %tq3 = arith.mulf %tq2, %tq : f64
      %w2 = arith.mulf %b3, %tq3 : f64
      %near = arith.cmpf olt, %q, %one : f64
      %inside = arith.cmpf olt, %q, %two : f64
      %outer = arith.select %inside, %w2, %zero : f64
      %w = arith.select %near, %w1, %outer : f64
      %mj = memref.load %m[%j] : memref<48xf64>
      %mw = arith.mulf %mj, %w : f64
      %rnext = arith.addf %racc, %mw : f64
      scf.yield %rnext : f64
    }
    %di = arith.mulf %sigma, %rho : f64
    memref.store %di, %dens[%i] : memref<48xf64>
  }
  return
}

func.func @sph_grad(%x: memref<48x3xf64>, %d_x: memref<48x3xf64>, %m: memref<48xf64>, %d_m: memref<48xf64>, %dens: memref<48xf64>, %d_dens: memref<48xf64>, %n: index) {
  enzyme.autodiff @sph(%x, %d_x, %m, %d_m, %dens, %d_dens, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<48x3xf64>, memref<48x3xf64>, memref<48xf64>, memref<48xf64>, memref<48xf64>, memref<48xf64>, index) -> ()
  return
}
