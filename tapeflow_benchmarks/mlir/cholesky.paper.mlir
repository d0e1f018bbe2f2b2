// cholesky, preset paper (N=40).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/cholesky.py, not this file.
func.func @cholesky(%A: memref<40x40xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  scf.for %i = %c0 to %c40 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        %a = memref.load %A[%i, %k] : memref<40x40xf64>
        %b = memref.load %A[%j, %k] : memref<40x40xf64>
        %c = memref.load %A[%i, %j] : memref<40x40xf64>
        %p = arith.mulf %a, %b : f64
        %d = arith.subf %c, %p : f64
        memref.store %d, %A[%i, %j] : memref<40x40xf64>
      }
      %x = memref.load %A[%i, %j] : memref<40x40xf64>
      %y = memref.load %A[%j, %j] : memref<40x40xf64>
      %q = arith.divf %x, %y : f64
      memref.store %q, %A[%i, %j] : memref<40x40xf64>
    }
    scf.for %k = %c0 to %i step %c1 {
      %a = memref.load %A[%i, %k] : memref<40x40xf64>
      %c = memref.load %A[%i, %i] : memref<40x40xf64>
      %p = arith.mulf %a, %a : f64
      %d = arith.subf %c, %p : f64
      memref.store %d, %A[%i, %i] : memref<40x40xf64>
    }
    %v = memref.load %A[%i, %i] : memref<40x40xf64>
    %r = math.sqrt %v : f64
    memref.store %r, %A[%i, %i] : memref<40x40xf64>
  }
  return
}

func.func @cholesky_grad(%A: memref<40x40xf64>, %d_A: memref<40x40xf64>) {
  enzyme.autodiff @cholesky(%A, %d_A) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<40x40xf64>, memref<40x40xf64>) -> ()
  return
}
