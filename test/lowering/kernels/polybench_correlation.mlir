// Source: PolyBench/C 4.2, datamining/correlation (kernel_correlation), with
// M = 3 columns and N = 4 rows, written with scf loops the way Polygeist lowers
// it. Constants are stored into duplicated buffers at three loop depths:
// corr[M-1][M-1] = 1 (none), corr[i][i] = 1 (one), corr[i][j] = 0 (two), and
// mean[j] = stddev[j] = 0 before their sums (docs/enzyme-bugs.md). The
// `stddev <= eps ? 1 : stddev` guard is PolyBench's, as an arith.select.
func.func @f(%data: memref<4x3xf64>, %corr: memref<3x3xf64>, %mean: memref<3xf64>,
             %stddev: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %eps = arith.constant 0.1 : f64
  %float_n = arith.constant 4.0 : f64
  scf.for %j = %c0 to %c3 step %c1 {
    memref.store %zero, %mean[%j] : memref<3xf64>
    scf.for %i = %c0 to %c4 step %c1 {
      %m = memref.load %mean[%j] : memref<3xf64>
      %d = memref.load %data[%i, %j] : memref<4x3xf64>
      %s = arith.addf %m, %d : f64
      memref.store %s, %mean[%j] : memref<3xf64>
    }
    %m = memref.load %mean[%j] : memref<3xf64>
    %q = arith.divf %m, %float_n : f64
    memref.store %q, %mean[%j] : memref<3xf64>
  }
  scf.for %j = %c0 to %c3 step %c1 {
    memref.store %zero, %stddev[%j] : memref<3xf64>
    scf.for %i = %c0 to %c4 step %c1 {
      %sd = memref.load %stddev[%j] : memref<3xf64>
      %d = memref.load %data[%i, %j] : memref<4x3xf64>
      %m = memref.load %mean[%j] : memref<3xf64>
      %e = arith.subf %d, %m : f64
      %e2 = arith.mulf %e, %e : f64
      %s = arith.addf %sd, %e2 : f64
      memref.store %s, %stddev[%j] : memref<3xf64>
    }
    %sd = memref.load %stddev[%j] : memref<3xf64>
    %v = arith.divf %sd, %float_n : f64
    %r = math.sqrt %v : f64
    %small = arith.cmpf ole, %r, %eps : f64
    %g = arith.select %small, %one, %r : f64
    memref.store %g, %stddev[%j] : memref<3xf64>
  }
  %sqrt_n = math.sqrt %float_n : f64
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %d = memref.load %data[%i, %j] : memref<4x3xf64>
      %m = memref.load %mean[%j] : memref<3xf64>
      %e = arith.subf %d, %m : f64
      %sd = memref.load %stddev[%j] : memref<3xf64>
      %den = arith.mulf %sqrt_n, %sd : f64
      %q = arith.divf %e, %den : f64
      memref.store %q, %data[%i, %j] : memref<4x3xf64>
    }
  }
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %one, %corr[%i, %i] : memref<3x3xf64>
    %i1 = arith.addi %i, %c1 : index
    scf.for %j = %i1 to %c3 step %c1 {
      memref.store %zero, %corr[%i, %j] : memref<3x3xf64>
      scf.for %k = %c0 to %c4 step %c1 {
        %c = memref.load %corr[%i, %j] : memref<3x3xf64>
        %a = memref.load %data[%k, %i] : memref<4x3xf64>
        %b = memref.load %data[%k, %j] : memref<4x3xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        memref.store %s, %corr[%i, %j] : memref<3x3xf64>
      }
      %c = memref.load %corr[%i, %j] : memref<3x3xf64>
      memref.store %c, %corr[%j, %i] : memref<3x3xf64>
    }
  }
  memref.store %one, %corr[%c2, %c2] : memref<3x3xf64>
  return
}
func.func @f_grad(%data: memref<4x3xf64>, %ddata: memref<4x3xf64>, %corr: memref<3x3xf64>,
                  %dcorr: memref<3x3xf64>, %mean: memref<3xf64>, %dmean: memref<3xf64>,
                  %stddev: memref<3xf64>, %dstddev: memref<3xf64>) {
  enzyme.autodiff @f(%data, %ddata, %corr, %dcorr, %mean, %dmean, %stddev, %dstddev) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4x3xf64>, memref<4x3xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>) -> ()
  return
}
