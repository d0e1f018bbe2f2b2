// bandchol, preset small (N=5, P=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/bandchol.py, not this file.
func.func @bandchol(%A: memref<5x5xf64>, %P: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %j = %c0 to %c5 step %c1 {
    %jp = arith.addi %j, %P : index
    %jp1 = arith.addi %jp, %c1 : index
    %e = arith.minsi %jp1, %c5 : index
    scf.for %i = %j to %e step %c1 {
      %im = arith.subi %i, %P : index
      %klo = arith.maxsi %im, %c0 : index
      %a0 = memref.load %A[%i, %j] : memref<5x5xf64>
      %s = scf.for %k = %klo to %j step %c1 iter_args(%acc = %a0) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<5x5xf64>
        %ajk = memref.load %A[%j, %k] : memref<5x5xf64>
        %m = arith.mulf %aik, %ajk : f64
        %next = arith.subf %acc, %m : f64
        scf.yield %next : f64
      }
      memref.store %s, %A[%i, %j] : memref<5x5xf64>
    }
    %d = memref.load %A[%j, %j] : memref<5x5xf64>
    %r = math.sqrt %d : f64
    memref.store %r, %A[%j, %j] : memref<5x5xf64>
    %j1 = arith.addi %j, %c1 : index
    scf.for %i = %j1 to %e step %c1 {
      %v = memref.load %A[%i, %j] : memref<5x5xf64>
      %q = arith.divf %v, %r : f64
      memref.store %q, %A[%i, %j] : memref<5x5xf64>
    }
  }
  return
}

func.func @bandchol_grad(%A: memref<5x5xf64>, %d_A: memref<5x5xf64>, %P: index) {
  enzyme.autodiff @bandchol(%A, %d_A, %P) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<5x5xf64>, memref<5x5xf64>, index) -> ()
  return
}
