// mttkrp, preset artifact (I=8, J=8, K=8, L=8, U=8, reload_b=1).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mttkrp.py, not this file.
func.func @mttkrp(%A: memref<8x8xf64>, %B: memref<8x8x8xf64>, %C: memref<8x8xf64>, %D: memref<8x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.for %l = %c0 to %c8 step %c1 {
        scf.for %j_trip = %c0 to %c1 step %c1 {
          %j = arith.muli %j_trip, %c8 : index
          %b_u0 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u0 = memref.load %D[%l, %j] : memref<8x8xf64>
          %bd_u0 = arith.mulf %b_u0, %d_u0 : f64
          %c_u0 = memref.load %C[%k, %j] : memref<8x8xf64>
          %bdc_u0 = arith.mulf %bd_u0, %c_u0 : f64
          %a_u0 = memref.load %A[%i, %j] : memref<8x8xf64>
          %sum_u0 = arith.addf %a_u0, %bdc_u0 : f64
          memref.store %sum_u0, %A[%i, %j] : memref<8x8xf64>
          %j_u1 = arith.addi %j, %c1 : index
          %b_u1 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u1 = memref.load %D[%l, %j_u1] : memref<8x8xf64>
          %bd_u1 = arith.mulf %b_u1, %d_u1 : f64
          %c_u1 = memref.load %C[%k, %j_u1] : memref<8x8xf64>
          %bdc_u1 = arith.mulf %bd_u1, %c_u1 : f64
          %a_u1 = memref.load %A[%i, %j_u1] : memref<8x8xf64>
          %sum_u1 = arith.addf %a_u1, %bdc_u1 : f64
          memref.store %sum_u1, %A[%i, %j_u1] : memref<8x8xf64>
          %j_u2 = arith.addi %j, %c2 : index
          %b_u2 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u2 = memref.load %D[%l, %j_u2] : memref<8x8xf64>
          %bd_u2 = arith.mulf %b_u2, %d_u2 : f64
          %c_u2 = memref.load %C[%k, %j_u2] : memref<8x8xf64>
          %bdc_u2 = arith.mulf %bd_u2, %c_u2 : f64
          %a_u2 = memref.load %A[%i, %j_u2] : memref<8x8xf64>
          %sum_u2 = arith.addf %a_u2, %bdc_u2 : f64
          memref.store %sum_u2, %A[%i, %j_u2] : memref<8x8xf64>
          %j_u3 = arith.addi %j, %c3 : index
          %b_u3 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u3 = memref.load %D[%l, %j_u3] : memref<8x8xf64>
          %bd_u3 = arith.mulf %b_u3, %d_u3 : f64
          %c_u3 = memref.load %C[%k, %j_u3] : memref<8x8xf64>
          %bdc_u3 = arith.mulf %bd_u3, %c_u3 : f64
          %a_u3 = memref.load %A[%i, %j_u3] : memref<8x8xf64>
          %sum_u3 = arith.addf %a_u3, %bdc_u3 : f64
          memref.store %sum_u3, %A[%i, %j_u3] : memref<8x8xf64>
          %j_u4 = arith.addi %j, %c4 : index
          %b_u4 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u4 = memref.load %D[%l, %j_u4] : memref<8x8xf64>
          %bd_u4 = arith.mulf %b_u4, %d_u4 : f64
          %c_u4 = memref.load %C[%k, %j_u4] : memref<8x8xf64>
          %bdc_u4 = arith.mulf %bd_u4, %c_u4 : f64
          %a_u4 = memref.load %A[%i, %j_u4] : memref<8x8xf64>
          %sum_u4 = arith.addf %a_u4, %bdc_u4 : f64
          memref.store %sum_u4, %A[%i, %j_u4] : memref<8x8xf64>
          %j_u5 = arith.addi %j, %c5 : index
          %b_u5 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u5 = memref.load %D[%l, %j_u5] : memref<8x8xf64>
          %bd_u5 = arith.mulf %b_u5, %d_u5 : f64
          %c_u5 = memref.load %C[%k, %j_u5] : memref<8x8xf64>
          %bdc_u5 = arith.mulf %bd_u5, %c_u5 : f64
          %a_u5 = memref.load %A[%i, %j_u5] : memref<8x8xf64>
          %sum_u5 = arith.addf %a_u5, %bdc_u5 : f64
          memref.store %sum_u5, %A[%i, %j_u5] : memref<8x8xf64>
          %j_u6 = arith.addi %j, %c6 : index
          %b_u6 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u6 = memref.load %D[%l, %j_u6] : memref<8x8xf64>
          %bd_u6 = arith.mulf %b_u6, %d_u6 : f64
          %c_u6 = memref.load %C[%k, %j_u6] : memref<8x8xf64>
          %bdc_u6 = arith.mulf %bd_u6, %c_u6 : f64
          %a_u6 = memref.load %A[%i, %j_u6] : memref<8x8xf64>
          %sum_u6 = arith.addf %a_u6, %bdc_u6 : f64
          memref.store %sum_u6, %A[%i, %j_u6] : memref<8x8xf64>
          %j_u7 = arith.addi %j, %c7 : index
          %b_u7 = memref.load %B[%i, %k, %l] : memref<8x8x8xf64>
          %d_u7 = memref.load %D[%l, %j_u7] : memref<8x8xf64>
          %bd_u7 = arith.mulf %b_u7, %d_u7 : f64
          %c_u7 = memref.load %C[%k, %j_u7] : memref<8x8xf64>
          %bdc_u7 = arith.mulf %bd_u7, %c_u7 : f64
          %a_u7 = memref.load %A[%i, %j_u7] : memref<8x8xf64>
          %sum_u7 = arith.addf %a_u7, %bdc_u7 : f64
          memref.store %sum_u7, %A[%i, %j_u7] : memref<8x8xf64>
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
