// mttkrp, preset small (I=3, J=2, K=4, L=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mttkrp.py, not this file.
func.func @mttkrp(%A: memref<3x2xf64>, %B: memref<3x4x5xf64>, %C: memref<4x2xf64>, %D: memref<5x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %k = %c0 to %c4 step %c1 {
      scf.for %l = %c0 to %c5 step %c1 {
        %b = memref.load %B[%i, %k, %l] : memref<3x4x5xf64>
        scf.for %j = %c0 to %c2 step %c1 {
          %d = memref.load %D[%l, %j] : memref<5x2xf64>
          %c = memref.load %C[%k, %j] : memref<4x2xf64>
          %bd = arith.mulf %b, %d : f64
          %bdc = arith.mulf %bd, %c : f64
          %a = memref.load %A[%i, %j] : memref<3x2xf64>
          %sum = arith.addf %a, %bdc : f64
          memref.store %sum, %A[%i, %j] : memref<3x2xf64>
        }
      }
    }
  }
  return
}

func.func @mttkrp_grad(%A: memref<3x2xf64>, %d_A: memref<3x2xf64>, %B: memref<3x4x5xf64>, %d_B: memref<3x4x5xf64>, %C: memref<4x2xf64>, %d_C: memref<4x2xf64>, %D: memref<5x2xf64>, %d_D: memref<5x2xf64>) {
  enzyme.autodiff @mttkrp(%A, %d_A, %B, %d_B, %C, %d_C, %D, %d_D) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3x2xf64>, memref<3x2xf64>, memref<3x4x5xf64>, memref<3x4x5xf64>, memref<4x2xf64>, memref<4x2xf64>, memref<5x2xf64>, memref<5x2xf64>) -> ()
  return
}
