// A trip count of two iterations' data, x[r] + x[r+1], and x[r] overwritten: the
// count is an op of values REV cannot reload.
func.func @neighbours(%x: memref<5xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3i = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %k3 = arith.constant 3.0 : f64
  %h = arith.constant 0.1 : f64
  %z = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    %r1 = arith.addi %r, %c1 : index
    %xr = memref.load %x[%r] : memref<5xf64>
    %xn = memref.load %x[%r1] : memref<5xf64>
    %xs = arith.addf %xr, %xn : f64
    %a = math.absf %xs : f64
    %s = arith.mulf %a, %k3 : f64
    %si = arith.fptosi %s : f64 to i64
    %m0 = arith.index_cast %si : i64 to index
    %m = arith.addi %m0, %c1 : index
    %v = scf.for %t = %c0 to %m step %c1 iter_args(%u = %xr) -> (f64) {
      %th = math.tanh %u : f64
      %d = arith.mulf %th, %h : f64
      %n = arith.addf %u, %d : f64
      scf.yield %n : f64
    }
    memref.store %v, %x[%r] : memref<5xf64>
    memref.store %v, %y[%r] : memref<4xf64>
  }
  return
}
func.func @neighbours_grad(%x: memref<5xf64>, %dx: memref<5xf64>, %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @neighbours(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xf64>, memref<5xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
