// PolyBench/C 4.2 ludcmp (linear-algebra/solvers/ludcmp): LU decomposition with
// the running sum in a scalar (`w`), then forward substitution `L y = b` and back
// substitution `U x = y` (its `for i = N-1 downto 0` written as `i = N-1-t`). The
// first nest is three deep and triangular twice over. Written anew in scf, N = 5.
func.func @f(%A: memref<5x5xf64>, %b: memref<5xf64>, %x: memref<5xf64>, %y: memref<5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant 5 : index
  %cN1 = arith.constant 4 : index
  scf.for %i = %c0 to %cN step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %w0 = memref.load %A[%i, %j] : memref<5x5xf64>
      %w = scf.for %k = %c0 to %j step %c1 iter_args(%acc = %w0) -> (f64) {
        %a = memref.load %A[%i, %k] : memref<5x5xf64>
        %c = memref.load %A[%k, %j] : memref<5x5xf64>
        %p = arith.mulf %a, %c : f64
        %s = arith.subf %acc, %p : f64
        scf.yield %s : f64
      }
      %d = memref.load %A[%j, %j] : memref<5x5xf64>
      %q = arith.divf %w, %d : f64
      memref.store %q, %A[%i, %j] : memref<5x5xf64>
    }
    scf.for %j = %i to %cN step %c1 {
      %w0 = memref.load %A[%i, %j] : memref<5x5xf64>
      %w = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
        %a = memref.load %A[%i, %k] : memref<5x5xf64>
        %c = memref.load %A[%k, %j] : memref<5x5xf64>
        %p = arith.mulf %a, %c : f64
        %s = arith.subf %acc, %p : f64
        scf.yield %s : f64
      }
      memref.store %w, %A[%i, %j] : memref<5x5xf64>
    }
  }
  scf.for %i = %c0 to %cN step %c1 {
    %w0 = memref.load %b[%i] : memref<5xf64>
    %w = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<5x5xf64>
      %c = memref.load %y[%j] : memref<5xf64>
      %p = arith.mulf %a, %c : f64
      %s = arith.subf %acc, %p : f64
      scf.yield %s : f64
    }
    memref.store %w, %y[%i] : memref<5xf64>
  }
  scf.for %t = %c0 to %cN step %c1 {
    %i = arith.subi %cN1, %t : index
    %w0 = memref.load %y[%i] : memref<5xf64>
    %i1 = arith.addi %i, %c1 : index
    %w = scf.for %j = %i1 to %cN step %c1 iter_args(%acc = %w0) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<5x5xf64>
      %c = memref.load %x[%j] : memref<5xf64>
      %p = arith.mulf %a, %c : f64
      %s = arith.subf %acc, %p : f64
      scf.yield %s : f64
    }
    %d = memref.load %A[%i, %i] : memref<5x5xf64>
    %q = arith.divf %w, %d : f64
    memref.store %q, %x[%i] : memref<5xf64>
  }
  return
}
func.func @f_grad(%A: memref<5x5xf64>, %dA: memref<5x5xf64>, %b: memref<5xf64>, %db: memref<5xf64>, %x: memref<5xf64>, %dx: memref<5xf64>, %y: memref<5xf64>, %dy: memref<5xf64>) {
  enzyme.autodiff @f(%A, %dA, %b, %db, %x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<5x5xf64>, memref<5x5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>) -> ()
  return
}
