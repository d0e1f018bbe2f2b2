// bandchol, preset paper (N=192, P=8).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/bandchol.py, not this file.
func.func @bandchol(%A: memref<192x192xf64>, %P: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c192 = arith.constant 192 : index
  scf.for %j = %c0 to %c192 step %c1 {
    %jp = arith.addi %j, %P : index
    %jp1 = arith.addi %jp, %c1 : index
    %e = arith.minsi %jp1, %c192 : index
    scf.for %i = %j to %e step %c1 {
      %im = arith.subi %i, %P : index
      %klo = arith.maxsi %im, %c0 : index
      %a0 = memref.load %A[%i, %j] : memref<192x192xf64>
      %s = scf.for %k = %klo to %j step %c1 iter_args(%acc = %a0) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<192x192xf64>
        %ajk = memref.load %A[%j, %k] : memref<192x192xf64>
        %m = arith.mulf %aik, %ajk : f64
        %next = arith.subf %acc, %m : f64
        scf.yield %next : f64
      }
      memref.store %s, %A[%i, %j] : memref<192x192xf64>
    }
    %d = memref.load %A[%j, %j] : memref<192x192xf64>
    %r = math.sqrt %d : f64
    memref.store %r, %A[%j, %j] : memref<192x192xf64>
    %j1 = arith.addi %j, %c1 : index
    scf.for %i = %j1 to %e step %c1 {
      %v = memref.load %A[%i, %j] : memref<192x192xf64>
      %q = arith.divf %v, %r : f64
      memref.store %q, %A[%i, %j] : memref<192x192xf64>
    }
  }
  return
}

func.func @bandchol_grad(%A: memref<192x192xf64>, %d_A: memref<192x192xf64>, %P: index) {
  enzyme.autodiff @bandchol(%A, %d_A, %P) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<192x192xf64>, memref<192x192xf64>, index) -> ()
  return
}
