// Two nested loops bounded by arguments (n x m) on buffers of dynamic shape, a
// read-modify-write of y[i] in the inner loop (a PolyBench atax/bicg-like row
// sweep with a nonlinear update): Enzyme caches through rank-reducing subviews
// of dynamic size.
func.func @rect(%x: memref<?x?xf64>, %y: memref<?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x?xf64>
      %b = memref.load %y[%i] : memref<?xf64>
      %p = arith.mulf %a, %b : f64
      %e = math.sin %p : f64
      memref.store %e, %y[%i] : memref<?xf64>
    }
  }
  return
}
func.func @rect_grad(%x: memref<?x?xf64>, %dx: memref<?x?xf64>, %y: memref<?xf64>, %dy: memref<?xf64>, %n: index, %m: index) {
  enzyme.autodiff @rect(%x, %dx, %y, %dy, %n, %m) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, memref<?xf64>, index, index) -> ()
  return
}
