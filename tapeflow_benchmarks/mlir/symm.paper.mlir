// symm, preset paper (M=48, N=24).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/symm.py, not this file.
func.func @symm(%A: memref<48x48xf64>, %B: memref<48x24xf64>, %C: memref<48x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %c48 = arith.constant 48 : index
  %zero = arith.constant 0.0 : f64
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c48 step %c1 {
    scf.for %j = %c0 to %c24 step %c1 {
      %bij = memref.load %B[%i, %j] : memref<48x24xf64>
      %abij = arith.mulf %alpha, %bij : f64
      %temp2 = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {
        %aik = memref.load %A[%i, %k] : memref<48x48xf64>
        %p = arith.mulf %abij, %aik : f64
        %ckj = memref.load %C[%k, %j] : memref<48x24xf64>
        %c = arith.addf %ckj, %p : f64
        memref.store %c, %C[%k, %j] : memref<48x24xf64>
        %bkj = memref.load %B[%k, %j] : memref<48x24xf64>
        %q = arith.mulf %bkj, %aik : f64
        %next = arith.addf %acc, %q : f64
        scf.yield %next : f64
      }
      %cij = memref.load %C[%i, %j] : memref<48x24xf64>
      %bc = arith.mulf %beta, %cij : f64
      %aii = memref.load %A[%i, %i] : memref<48x48xf64>
      %d = arith.mulf %abij, %aii : f64
      %at2 = arith.mulf %alpha, %temp2 : f64
      %s1 = arith.addf %bc, %d : f64
      %s2 = arith.addf %s1, %at2 : f64
      %act = math.tanh %s2 : f64
      memref.store %act, %C[%i, %j] : memref<48x24xf64>
    }
  }
  return
}

func.func @symm_grad(%A: memref<48x48xf64>, %d_A: memref<48x48xf64>, %B: memref<48x24xf64>, %d_B: memref<48x24xf64>, %C: memref<48x24xf64>, %d_C: memref<48x24xf64>) {
  enzyme.autodiff @symm(%A, %d_A, %B, %d_B, %C, %d_C) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<48x48xf64>, memref<48x48xf64>, memref<48x24xf64>, memref<48x24xf64>, memref<48x24xf64>, memref<48x24xf64>) -> ()
  return
}
