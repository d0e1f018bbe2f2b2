// mttkrp, preset artifact (I=8, J=8, K=8, L=8).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mttkrp.py, not this file.
func.func @mttkrp(%A: memref<8x8xf64>, %B: memref<8x8x8xf64>, %C: memref<8x8xf64>, %D: memref<8x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.for %l = %c0 to %c8 step %c1 {
        %b = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
        scf.for %j = %c0 to %c8 step %c1 {
          %d = memref.load %D[%l, %j] : memref<8x8xf64>
          %c = memref.load %C[%k, %j] : memref<8x8xf64>
          %bd = arith.mulf %b, %d : f64
          %bdc = arith.mulf %bd, %c : f64
          %a = memref.load %A[%i, %j] : memref<8x8xf64>
          %sum = arith.addf %a, %bdc : f64
          memref.store %sum, %A[%i, %j] : memref<8x8xf64>
        }
      }
    }
  }
  return
}

func.func @mttkrp_grad(%A: memref<8x8xf64>, %d_A: memref<8x8xf64>, %B: memref<8x8x8xf64>, %d_B: memref<8x8x8xf64>, %C: memref<8x8xf64>, %d_C: memref<8x8xf64>, %D: memref<8x8xf64>, %d_D: memref<8x8xf64>) {
  enzyme.autodiff @mttkrp(%A, %d_A, %B, %d_B, %C, %d_C, %D, %d_D) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x8xf64>, memref<8x8xf64>, memref<8x8x8xf64>, memref<8x8x8xf64>, memref<8x8xf64>, memref<8x8xf64>, memref<8x8xf64>, memref<8x8xf64>) -> ()
  return
}
