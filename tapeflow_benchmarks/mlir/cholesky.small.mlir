// cholesky, preset small (N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/cholesky.py, not this file.
func.func @cholesky(%A: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        %a = memref.load %A[%i, %k] : memref<5x5xf64>
        %b = memref.load %A[%j, %k] : memref<5x5xf64>
        %c = memref.load %A[%i, %j] : memref<5x5xf64>
        %p = arith.mulf %a, %b : f64
        %d = arith.subf %c, %p : f64
        memref.store %d, %A[%i, %j] : memref<5x5xf64>
      }
      %x = memref.load %A[%i, %j] : memref<5x5xf64>
      %y = memref.load %A[%j, %j] : memref<5x5xf64>
      %q = arith.divf %x, %y : f64
      memref.store %q, %A[%i, %j] : memref<5x5xf64>
    }
    scf.for %k = %c0 to %i step %c1 {
      %a = memref.load %A[%i, %k] : memref<5x5xf64>
      %c = memref.load %A[%i, %i] : memref<5x5xf64>
      %p = arith.mulf %a, %a : f64
      %d = arith.subf %c, %p : f64
      memref.store %d, %A[%i, %i] : memref<5x5xf64>
    }
    %v = memref.load %A[%i, %i] : memref<5x5xf64>
    %r = math.sqrt %v : f64
    memref.store %r, %A[%i, %i] : memref<5x5xf64>
  }
  return
}

func.func @cholesky_grad(%A: memref<5x5xf64>, %d_A: memref<5x5xf64>) {
  enzyme.autodiff @cholesky(%A, %d_A) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
