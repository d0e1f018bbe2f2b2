// kmeans, preset small (N=5, n=4, K=3, D=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/kmeans.py, not this file.
func.func @kmeans(%x: memref<5x2xf64>, %mu: memref<3x2xf64>, %r: memref<5x3xf64>, %m: memref<3x2xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %nbeta = arith.constant -2.0 : f64
  scf.for %p = %c0 to %n step %c1 {
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%sacc = %zero) -> (f64) {
      %d = scf.for %e = %c0 to %c2 step %c1 iter_args(%dacc = %zero) -> (f64) {
        %xv = memref.load %x[%p, %e] : memref<5x2xf64>
        %mv = memref.load %mu[%k, %e] : memref<3x2xf64>
        %diff = arith.subf %xv, %mv : f64
        %sq = arith.mulf %diff, %diff : f64
        %dnext = arith.addf %dacc, %sq : f64
        scf.yield %dnext : f64
      }
      %arg = arith.mulf %nbeta, %d : f64
      %w = math.exp %arg : f64
      memref.store %w, %r[%p, %k] : memref<5x3xf64>
      %snext = arith.addf %sacc, %w : f64
      scf.yield %snext : f64
    }
    scf.for %k = %c0 to %c3 step %c1 {
      %w = memref.load %r[%p, %k] : memref<5x3xf64>
      %q = arith.divf %w, %s : f64
      memref.store %q, %r[%p, %k] : memref<5x3xf64>
    }
  }
  scf.for %k = %c0 to %c3 step %c1 {
    scf.for %e = %c0 to %c2 step %c1 {
      %num, %den = scf.for %p = %c0 to %n step %c1
          iter_args(%nacc = %zero, %racc = %zero) -> (f64, f64) {
        %rv = memref.load %r[%p, %k] : memref<5x3xf64>
        %xv = memref.load %x[%p, %e] : memref<5x2xf64>
        %rx = arith.mulf %rv, %xv : f64
        %nnext = arith.addf %nacc, %rx : f64
        %rnext = arith.addf %racc, %rv : f64
        scf.yield %nnext, %rnext : f64, f64
      }
      %mean = arith.divf %num, %den : f64
      memref.store %mean, %m[%k, %e] : memref<3x2xf64>
    }
  }
  return
}

func.func @kmeans_grad(%x: memref<5x2xf64>, %d_x: memref<5x2xf64>, %mu: memref<3x2xf64>, %d_mu: memref<3x2xf64>, %r: memref<5x3xf64>, %d_r: memref<5x3xf64>, %m: memref<3x2xf64>, %d_m: memref<3x2xf64>, %n: index) {
  enzyme.autodiff @kmeans(%x, %d_x, %mu, %d_mu, %r, %d_r, %m, %d_m, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<5x2xf64>, memref<5x2xf64>, memref<3x2xf64>, memref<3x2xf64>, memref<5x3xf64>, memref<5x3xf64>, memref<3x2xf64>, memref<3x2xf64>, index) -> ()
  return
}
