// Rows of a sparse matrix in CSR storage, `y[i] = tanh(sum_{k = p[i]}^{p[i+1]-1} v[k] x[c[k]])`:
// the inner loop's bounds are loaded from the row pointers %p, and Enzyme caches
// them on the tape for REV's loop (written anew after Saad, "Iterative Methods for
// Sparse Linear Systems", Algorithm 3.1).
func.func @f(%p: memref<5xindex>, %c: memref<9xindex>, %v: memref<9xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %p[%i] : memref<5xindex>
    %hi = memref.load %p[%i1] : memref<5xindex>
    %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
      %j = memref.load %c[%k] : memref<9xindex>
      %a = memref.load %v[%k] : memref<9xf64>
      %b = memref.load %x[%j] : memref<4xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %acc, %m : f64
      scf.yield %n : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<4xf64>
  }
  return
}
func.func @f_grad(%p: memref<5xindex>, %c: memref<9xindex>, %v: memref<9xf64>, %dv: memref<9xf64>, %x: memref<4xf64>, %dx: memref<4xf64>, %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @f(%p, %c, %v, %dv, %x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<9xindex>, memref<9xf64>, memref<9xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
