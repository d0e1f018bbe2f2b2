// kmeans, preset paper (N=256, n=256, K=8, D=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/kmeans.py, not this file.
func.func @kmeans(%x: memref<256x4xf64>, %mu: memref<8x4xf64>, %r: memref<256x8xf64>, %m: memref<8x4xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %nbeta = arith.constant -2.0 : f64
  scf.for %p = %c0 to %n step %c1 {
    %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%sacc = %zero) -> (f64) {
      %d = scf.for %e = %c0 to %c4 step %c1 iter_args(%dacc = %zero) -> (f64) {
        %xv = memref.load %x[%p, %e] : memref<256x4xf64>
        %mv = memref.load %mu[%k, %e] : memref<8x4xf64>
        %diff = arith.subf %xv, %mv : f64
        %sq = arith.mulf %diff, %diff : f64
        %dnext = arith.addf %dacc, %sq : f64
        scf.yield %dnext : f64
      }
      %arg = arith.mulf %nbeta, %d : f64
      %w = math.exp %arg : f64
      memref.store %w, %r[%p, %k] : memref<256x8xf64>
      %snext = arith.addf %sacc, %w : f64
      scf.yield %snext : f64
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %w = memref.load %r[%p, %k] : memref<256x8xf64>
      %q = arith.divf %w, %s : f64
      memref.store %q, %r[%p, %k] : memref<256x8xf64>
    }
  }
  scf.for %k = %c0 to %c8 step %c1 {
    scf.for %e = %c0 to %c4 step %c1 {
      %num, %den = scf.for %p = %c0 to %n step %c1
          iter_args(%nacc = %zero, %racc = %zero) -> (f64, f64) {
        %rv = memref.load %r[%p, %k] : memref<256x8xf64>
        %xv = memref.load %x[%p, %e] : memref<256x4xf64>
        %rx = arith.mulf %rv, %xv : f64
        %nnext = arith.addf %nacc, %rx : f64
        %rnext = arith.addf %racc, %rv : f64
        scf.yield %nnext, %rnext : f64, f64
      }
      %mean = arith.divf %num, %den : f64
      memref.store %mean, %m[%k, %e] : memref<8x4xf64>
    }
  }
  return
}

func.func @kmeans_grad(%x: memref<256x4xf64>, %d_x: memref<256x4xf64>, %mu: memref<8x4xf64>, %d_mu: memref<8x4xf64>, %r: memref<256x8xf64>, %d_r: memref<256x8xf64>, %m: memref<8x4xf64>, %d_m: memref<8x4xf64>, %n: index) {
  enzyme.autodiff @kmeans(%x, %d_x, %mu, %d_mu, %r, %d_r, %m, %d_m, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<256x4xf64>, memref<256x4xf64>, memref<8x4xf64>, memref<8x4xf64>, memref<256x8xf64>, memref<256x8xf64>, memref<8x4xf64>, memref<8x4xf64>, index) -> ()
  return
}
