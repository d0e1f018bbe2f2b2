// PolyBench's covariance triangle (datamining/covariance): cov[i][j] = sum_k
// data[k][i] * data[k][j] for j >= i, over 32 rows of 16 columns (4 KB of data).
// Each iteration of `j` walks two columns, a row 128 B apart.
func.func @f(%data: memref<32x16xf64>, %cov: memref<16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %i to %c16 step %c1 {
      %dot = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %data[%k, %i] : memref<32x16xf64>
        %b = memref.load %data[%k, %j] : memref<32x16xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %dot, %cov[%i, %j] : memref<16x16xf64>
    }
  }
  return
}

func.func @f_grad(%data: memref<32x16xf64>, %ddata: memref<32x16xf64>, %cov: memref<16x16xf64>, %dcov: memref<16x16xf64>) {
  enzyme.autodiff @f(%data, %ddata, %cov, %dcov) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x16xf64>, memref<32x16xf64>, memref<16x16xf64>, memref<16x16xf64>) -> ()
  return
}
