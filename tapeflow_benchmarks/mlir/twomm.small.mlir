// twomm, preset small (NI=3, NJ=4, NK=3, NL=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/twomm.py, not this file.
func.func @twomm(%A: memref<3x3xf64>, %B: memref<3x4xf64>, %C: memref<4x2xf64>, %D: memref<3x2xf64>, %tmp: memref<3x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %A[%i, %k] : memref<3x3xf64>
        %aa = arith.mulf %alpha, %a : f64
        %b = memref.load %B[%k, %j] : memref<3x4xf64>
        %p = arith.mulf %aa, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %act = math.tanh %s : f64
      memref.store %act, %tmp[%i, %j] : memref<3x4xf64>
    }
  }
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %d = memref.load %D[%i, %j] : memref<3x2xf64>
      %init = arith.mulf %d, %beta : f64
      %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f64) {
        %t = memref.load %tmp[%i, %k] : memref<3x4xf64>
        %c = memref.load %C[%k, %j] : memref<4x2xf64>
        %p = arith.mulf %t, %c : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %s, %D[%i, %j] : memref<3x2xf64>
    }
  }
  return
}

func.func @twomm_grad(%A: memref<3x3xf64>, %d_A: memref<3x3xf64>, %B: memref<3x4xf64>, %d_B: memref<3x4xf64>, %C: memref<4x2xf64>, %d_C: memref<4x2xf64>, %D: memref<3x2xf64>, %d_D: memref<3x2xf64>, %tmp: memref<3x4xf64>, %d_tmp: memref<3x4xf64>) {
  enzyme.autodiff @twomm(%A, %d_A, %B, %d_B, %C, %d_C, %D, %d_D, %tmp, %d_tmp) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3x3xf64>, memref<3x3xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<4x2xf64>, memref<4x2xf64>, memref<3x2xf64>, memref<3x2xf64>, memref<3x4xf64>, memref<3x4xf64>) -> ()
  return
}
