// PolyBench/C 4.2 trisolv (linear-algebra/solvers/trisolv): forward substitution
// `L x = b`, x[i] updated in place in a triangular nest `for i; for j < i`.
// Written anew in scf, N = 6.
func.func @f(%L: memref<6x6xf64>, %x: memref<6xf64>, %b: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant 6 : index
  scf.for %i = %c0 to %cN step %c1 {
    %bi = memref.load %b[%i] : memref<6xf64>
    memref.store %bi, %x[%i] : memref<6xf64>
    scf.for %j = %c0 to %i step %c1 {
      %l = memref.load %L[%i, %j] : memref<6x6xf64>
      %xj = memref.load %x[%j] : memref<6xf64>
      %xi = memref.load %x[%i] : memref<6xf64>
      %p = arith.mulf %l, %xj : f64
      %s = arith.subf %xi, %p : f64
      memref.store %s, %x[%i] : memref<6xf64>
    }
    %xi = memref.load %x[%i] : memref<6xf64>
    %d = memref.load %L[%i, %i] : memref<6x6xf64>
    %q = arith.divf %xi, %d : f64
    memref.store %q, %x[%i] : memref<6xf64>
  }
  return
}
func.func @f_grad(%L: memref<6x6xf64>, %dL: memref<6x6xf64>, %x: memref<6xf64>, %dx: memref<6xf64>, %b: memref<6xf64>, %db: memref<6xf64>) {
  enzyme.autodiff @f(%L, %dL, %x, %dx, %b, %db) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<6x6xf64>, memref<6x6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
