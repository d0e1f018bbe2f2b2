// ludcmp, preset small (N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/ludcmp.py, not this file.
func.func @ludcmp(%A: memref<5x5xf64>, %b: memref<5xf64>, %x: memref<5xf64>, %y: memref<5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %w0 = memref.load %A[%i, %j] : memref<5x5xf64>
      %w = scf.for %k = %c0 to %j step %c1 iter_args(%acc = %w0) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<5x5xf64>
        %akj = memref.load %A[%k, %j] : memref<5x5xf64>
        %p = arith.mulf %aik, %akj : f64
        %d = arith.subf %acc, %p : f64
        scf.yield %d : f64
      }
      %ajj = memref.load %A[%j, %j] : memref<5x5xf64>
      %q = arith.divf %w, %ajj : f64
      memref.store %q, %A[%i, %j] : memref<5x5xf64>
    }
    scf.for %j = %i to %c5 step %c1 {
      %w0 = memref.load %A[%i, %j] : memref<5x5xf64>
      %w = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<5x5xf64>
        %akj = memref.load %A[%k, %j] : memref<5x5xf64>
        %p = arith.mulf %aik, %akj : f64
        %d = arith.subf %acc, %p : f64
        scf.yield %d : f64
      }
      memref.store %w, %A[%i, %j] : memref<5x5xf64>
    }
  }
  scf.for %i = %c0 to %c5 step %c1 {
    %w0 = memref.load %b[%i] : memref<5xf64>
    %w = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
      %aij = memref.load %A[%i, %j] : memref<5x5xf64>
      %yj = memref.load %y[%j] : memref<5xf64>
      %p = arith.mulf %aij, %yj : f64
      %d = arith.subf %acc, %p : f64
      scf.yield %d : f64
    }
    memref.store %w, %y[%i] : memref<5xf64>
  }
  scf.for %r = %c0 to %c5 step %c1 {
    %i = arith.subi %c4, %r : index
    %i1 = arith.addi %i, %c1 : index
    %w0 = memref.load %y[%i] : memref<5xf64>
    %w = scf.for %j = %i1 to %c5 step %c1 iter_args(%acc = %w0) -> (f64) {
      %aij = memref.load %A[%i, %j] : memref<5x5xf64>
      %xj = memref.load %x[%j] : memref<5xf64>
      %p = arith.mulf %aij, %xj : f64
      %d = arith.subf %acc, %p : f64
      scf.yield %d : f64
    }
    %aii = memref.load %A[%i, %i] : memref<5x5xf64>
    %q = arith.divf %w, %aii : f64
    memref.store %q, %x[%i] : memref<5xf64>
  }
  return
}

func.func @ludcmp_grad(%A: memref<5x5xf64>, %d_A: memref<5x5xf64>, %b: memref<5xf64>, %d_b: memref<5xf64>, %x: memref<5xf64>, %d_x: memref<5xf64>, %y: memref<5xf64>, %d_y: memref<5xf64>) {
  enzyme.autodiff @ludcmp(%A, %d_A, %b, %d_b, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x5xf64>, memref<5x5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>) -> ()
  return
}
