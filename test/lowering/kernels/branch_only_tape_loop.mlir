// A loop whose only tape values are stored under a branch, two per iteration
// (tiles of iterations whose entries are filled only where the branch ran), next
// to a nest whose stores are all unconditional.
// Kind: PolyBench's clipped stencil updates as Polygeist emits them (an scf.if on
// a comparison guarding an in-place read-modify-write, e.g. nussinov/deriche-style
// `if (c) A[i] = f(A[i], B[i])`), with Enzyme-MLIR's scf.if reverse rules. Written anew.
func.func @f(%a: memref<16xf64>, %b: memref<16xf64>, %m: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c16 step %c1 {
    %g = memref.load %m[%i] : memref<16xf64>
    %on = arith.cmpf olt, %g, %zero : f64
    scf.if %on {
      %p = memref.load %a[%i] : memref<16xf64>
      %q = memref.load %b[%i] : memref<16xf64>
      %pq = arith.mulf %p, %q : f64
      %e = math.exp %pq : f64
      memref.store %e, %a[%i] : memref<16xf64>
      %qq = arith.mulf %q, %q : f64
      memref.store %qq, %b[%i] : memref<16xf64>
    }
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %p = memref.load %a[%i] : memref<16xf64>
    %s = math.sin %p : f64
    memref.store %s, %a[%i] : memref<16xf64>
  }
  return
}

func.func @f_grad(%a: memref<16xf64>, %da: memref<16xf64>, %b: memref<16xf64>, %db: memref<16xf64>, %m: memref<16xf64>, %dm: memref<16xf64>) {
  enzyme.autodiff @f(%a, %da, %b, %db, %m, %dm) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>) -> ()
  return
}
