// threemm, preset small (NI=2, NJ=3, NK=2, NL=2, NM=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/threemm.py, not this file.
func.func @threemm(%A: memref<2x2xf64>, %B: memref<2x3xf64>, %C: memref<3x3xf64>, %D: memref<3x2xf64>, %E: memref<2x3xf64>, %F: memref<3x2xf64>, %G: memref<2x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %s1 = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %A[%i, %k] : memref<2x2xf64>
        %b = memref.load %B[%k, %j] : memref<2x3xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %act1 = math.tanh %s1 : f64
      memref.store %act1, %E[%i, %j] : memref<2x3xf64>
    }
  }
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %s2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %C[%i, %k] : memref<3x3xf64>
        %b = memref.load %D[%k, %j] : memref<3x2xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %act2 = math.tanh %s2 : f64
      memref.store %act2, %F[%i, %j] : memref<3x2xf64>
    }
  }
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %s3 = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %E[%i, %k] : memref<2x3xf64>
        %b = memref.load %F[%k, %j] : memref<3x2xf64>
        %p = arith.mulf %a, %b : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %s3, %G[%i, %j] : memref<2x2xf64>
    }
  }
  return
}

func.func @threemm_grad(%A: memref<2x2xf64>, %d_A: memref<2x2xf64>, %B: memref<2x3xf64>, %d_B: memref<2x3xf64>, %C: memref<3x3xf64>, %d_C: memref<3x3xf64>, %D: memref<3x2xf64>, %d_D: memref<3x2xf64>, %E: memref<2x3xf64>, %d_E: memref<2x3xf64>, %F: memref<3x2xf64>, %d_F: memref<3x2xf64>, %G: memref<2x2xf64>, %d_G: memref<2x2xf64>) {
  enzyme.autodiff @threemm(%A, %d_A, %B, %d_B, %C, %d_C, %D, %d_D, %E, %d_E, %F, %d_F, %G, %d_G) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x2xf64>, memref<2x2xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<3x3xf64>, memref<3x3xf64>, memref<3x2xf64>, memref<3x2xf64>, memref<2x3xf64>, memref<2x3xf64>, memref<3x2xf64>, memref<3x2xf64>, memref<2x2xf64>, memref<2x2xf64>) -> ()
  return
}
