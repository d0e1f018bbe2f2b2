// Source: PolyBench/C 4.2, datamining/covariance (kernel_covariance), with
// M = 3 columns and N = 4 rows, written with scf loops the way Polygeist lowers
// it. cov[i][j] is zeroed before it is accumulated into (a store of a constant
// into a duplicated buffer: Enzyme-MLIR 0.0.16 keeps the shadow's seed there,
// docs/enzyme-bugs.md), then mirrored into cov[j][i] (j from i: triangular).
func.func @f(%data: memref<4x3xf64>, %cov: memref<3x3xf64>, %mean: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
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
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %d = memref.load %data[%i, %j] : memref<4x3xf64>
      %m = memref.load %mean[%j] : memref<3xf64>
      %s = arith.subf %d, %m : f64
      memref.store %s, %data[%i, %j] : memref<4x3xf64>
    }
  }
  %n1 = arith.subf %float_n, %one : f64
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %i to %c3 step %c1 {
      memref.store %zero, %cov[%i, %j] : memref<3x3xf64>
      scf.for %k = %c0 to %c4 step %c1 {
        %c = memref.load %cov[%i, %j] : memref<3x3xf64>
        %a = memref.load %data[%k, %i] : memref<4x3xf64>
        %b = memref.load %data[%k, %j] : memref<4x3xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        memref.store %s, %cov[%i, %j] : memref<3x3xf64>
      }
      %c = memref.load %cov[%i, %j] : memref<3x3xf64>
      %q = arith.divf %c, %n1 : f64
      memref.store %q, %cov[%i, %j] : memref<3x3xf64>
      memref.store %q, %cov[%j, %i] : memref<3x3xf64>
    }
  }
  return
}
func.func @f_grad(%data: memref<4x3xf64>, %ddata: memref<4x3xf64>, %cov: memref<3x3xf64>,
                  %dcov: memref<3x3xf64>, %mean: memref<3xf64>, %dmean: memref<3xf64>) {
  enzyme.autodiff @f(%data, %ddata, %cov, %dcov, %mean, %dmean) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4x3xf64>, memref<4x3xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<3xf64>, memref<3xf64>) -> ()
  return
}
