// ludcmp, preset paper (N=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/ludcmp.py, not this file.
func.func @ludcmp(%A: memref<32x32xf64>, %b: memref<32xf64>, %x: memref<32xf64>, %y: memref<32xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %w0 = memref.load %A[%i, %j] : memref<32x32xf64>
      %w = scf.for %k = %c0 to %j step %c1 iter_args(%acc = %w0) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<32x32xf64>
        %akj = memref.load %A[%k, %j] : memref<32x32xf64>
        %p = arith.mulf %aik, %akj : f64
        %d = arith.subf %acc, %p : f64
        scf.yield %d : f64
      }
      %ajj = memref.load %A[%j, %j] : memref<32x32xf64>
      %q = arith.divf %w, %ajj : f64
      memref.store %q, %A[%i, %j] : memref<32x32xf64>
    }
    scf.for %j = %i to %c32 step %c1 {
      %w0 = memref.load %A[%i, %j] : memref<32x32xf64>
      %w = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<32x32xf64>
        %akj = memref.load %A[%k, %j] : memref<32x32xf64>
        %p = arith.mulf %aik, %akj : f64
        %d = arith.subf %acc, %p : f64
        scf.yield %d : f64
      }
      memref.store %w, %A[%i, %j] : memref<32x32xf64>
    }
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %w0 = memref.load %b[%i] : memref<32xf64>
    %w = scf.for %j = %c0 to %i step %c1 iter_args(%acc = %w0) -> (f64) {
      %aij = memref.load %A[%i, %j] : memref<32x32xf64>
      %yj = memref.load %y[%j] : memref<32xf64>
      %p = arith.mulf %aij, %yj : f64
      %d = arith.subf %acc, %p : f64
      scf.yield %d : f64
    }
    memref.store %w, %y[%i] : memref<32xf64>
  }
  scf.for %r = %c0 to %c32 step %c1 {
    %i = arith.subi %c31, %r : index
    %i1 = arith.addi %i, %c1 : index
    %w0 = memref.load %y[%i] : memref<32xf64>
    %w = scf.for %j = %i1 to %c32 step %c1 iter_args(%acc = %w0) -> (f64) {
      %aij = memref.load %A[%i, %j] : memref<32x32xf64>
      %xj = memref.load %x[%j] : memref<32xf64>
      %p = arith.mulf %aij, %xj : f64
      %d = arith.subf %acc, %p : f64
      scf.yield %d : f64
    }
    %aii = memref.load %A[%i, %i] : memref<32x32xf64>
    %q = arith.divf %w, %aii : f64
    memref.store %q, %x[%i] : memref<32xf64>
  }
  return
}

func.func @ludcmp_grad(%A: memref<32x32xf64>, %d_A: memref<32x32xf64>, %b: memref<32xf64>, %d_b: memref<32xf64>, %x: memref<32xf64>, %d_x: memref<32xf64>, %y: memref<32xf64>, %d_y: memref<32xf64>) {
  enzyme.autodiff @ludcmp(%A, %d_A, %b, %d_b, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<32x32xf64>, memref<32x32xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>, memref<32xf64>) -> ()
  return
}
