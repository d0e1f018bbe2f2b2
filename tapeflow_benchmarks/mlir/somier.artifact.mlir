// somier, preset artifact (N=10, reload_self=1).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/somier.py, not this file.
func.func @somier(%X: memref<3x10x10x10xf64>, %F: memref<3x10x10x10xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  %one = arith.constant 1.0 : f64
  %quarter_k = arith.constant 2.5 : f64
  scf.for %i = %c1 to %c9 step %c1 {
    scf.for %j = %c1 to %c9 step %c1 {
      scf.for %k = %c1 to %c9 step %c1 {
        // neighbour 0: (i-1, j, k)
        %n0_i = arith.subi %i, %c1 : index
        %n0_x0 = memref.load %X[%c0, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_s0 = memref.load %X[%c0, %i, %j, %k] : memref<3x10x10x10xf64>
        %n0_d0 = arith.subf %n0_x0, %n0_s0 : f64
        %n0_x1 = memref.load %X[%c1, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_s1 = memref.load %X[%c1, %i, %j, %k] : memref<3x10x10x10xf64>
        %n0_d1 = arith.subf %n0_x1, %n0_s1 : f64
        %n0_x2 = memref.load %X[%c2, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_s2 = memref.load %X[%c2, %i, %j, %k] : memref<3x10x10x10xf64>
        %n0_d2 = arith.subf %n0_x2, %n0_s2 : f64
        %n0_dd0 = arith.mulf %n0_d0, %n0_d0 : f64
        %n0_dd1 = arith.mulf %n0_d1, %n0_d1 : f64
        %n0_dd2 = arith.mulf %n0_d2, %n0_d2 : f64
        %n0_dd01 = arith.addf %n0_dd0, %n0_dd1 : f64
        %n0_dl = arith.addf %n0_dd01, %n0_dd2 : f64
        %n0_stretch = arith.subf %n0_dl, %one : f64
        %n0_f = arith.mulf %quarter_k, %n0_stretch : f64
        %n0_fd0 = arith.mulf %n0_f, %n0_d0 : f64
        %n0_q0 = arith.divf %n0_fd0, %n0_dl : f64
        %n0_F0 = memref.load %F[%c0, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_Fnew0 = arith.addf %n0_F0, %n0_q0 : f64
        memref.store %n0_Fnew0, %F[%c0, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_fd1 = arith.mulf %n0_f, %n0_d1 : f64
        %n0_q1 = arith.divf %n0_fd1, %n0_dl : f64
        %n0_F1 = memref.load %F[%c1, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_Fnew1 = arith.addf %n0_F1, %n0_q1 : f64
        memref.store %n0_Fnew1, %F[%c1, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_fd2 = arith.mulf %n0_f, %n0_d2 : f64
        %n0_q2 = arith.divf %n0_fd2, %n0_dl : f64
        %n0_F2 = memref.load %F[%c2, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        %n0_Fnew2 = arith.addf %n0_F2, %n0_q2 : f64
        memref.store %n0_Fnew2, %F[%c2, %n0_i, %j, %k] : memref<3x10x10x10xf64>
        // neighbour 1: (i+1, j, k)
        %n1_i = arith.addi %i, %c1 : index
        %n1_x0 = memref.load %X[%c0, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_s0 = memref.load %X[%c0, %i, %j, %k] : memref<3x10x10x10xf64>
        %n1_d0 = arith.subf %n1_x0, %n1_s0 : f64
        %n1_x1 = memref.load %X[%c1, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_s1 = memref.load %X[%c1, %i, %j, %k] : memref<3x10x10x10xf64>
        %n1_d1 = arith.subf %n1_x1, %n1_s1 : f64
        %n1_x2 = memref.load %X[%c2, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_s2 = memref.load %X[%c2, %i, %j, %k] : memref<3x10x10x10xf64>
        %n1_d2 = arith.subf %n1_x2, %n1_s2 : f64
        %n1_dd0 = arith.mulf %n1_d0, %n1_d0 : f64
        %n1_dd1 = arith.mulf %n1_d1, %n1_d1 : f64
        %n1_dd2 = arith.mulf %n1_d2, %n1_d2 : f64
        %n1_dd01 = arith.addf %n1_dd0, %n1_dd1 : f64
        %n1_dl = arith.addf %n1_dd01, %n1_dd2 : f64
        %n1_stretch = arith.subf %n1_dl, %one : f64
        %n1_f = arith.mulf %quarter_k, %n1_stretch : f64
        %n1_fd0 = arith.mulf %n1_f, %n1_d0 : f64
        %n1_q0 = arith.divf %n1_fd0, %n1_dl : f64
        %n1_F0 = memref.load %F[%c0, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_Fnew0 = arith.addf %n1_F0, %n1_q0 : f64
        memref.store %n1_Fnew0, %F[%c0, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_fd1 = arith.mulf %n1_f, %n1_d1 : f64
        %n1_q1 = arith.divf %n1_fd1, %n1_dl : f64
        %n1_F1 = memref.load %F[%c1, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_Fnew1 = arith.addf %n1_F1, %n1_q1 : f64
        memref.store %n1_Fnew1, %F[%c1, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_fd2 = arith.mulf %n1_f, %n1_d2 : f64
        %n1_q2 = arith.divf %n1_fd2, %n1_dl : f64
        %n1_F2 = memref.load %F[%c2, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        %n1_Fnew2 = arith.addf %n1_F2, %n1_q2 : f64
        memref.store %n1_Fnew2, %F[%c2, %n1_i, %j, %k] : memref<3x10x10x10xf64>
        // neighbour 2: (i, j-1, k)
        %n2_j = arith.subi %j, %c1 : index
        %n2_x0 = memref.load %X[%c0, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_s0 = memref.load %X[%c0, %i, %j, %k] : memref<3x10x10x10xf64>
        %n2_d0 = arith.subf %n2_x0, %n2_s0 : f64
        %n2_x1 = memref.load %X[%c1, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_s1 = memref.load %X[%c1, %i, %j, %k] : memref<3x10x10x10xf64>
        %n2_d1 = arith.subf %n2_x1, %n2_s1 : f64
        %n2_x2 = memref.load %X[%c2, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_s2 = memref.load %X[%c2, %i, %j, %k] : memref<3x10x10x10xf64>
        %n2_d2 = arith.subf %n2_x2, %n2_s2 : f64
        %n2_dd0 = arith.mulf %n2_d0, %n2_d0 : f64
        %n2_dd1 = arith.mulf %n2_d1, %n2_d1 : f64
        %n2_dd2 = arith.mulf %n2_d2, %n2_d2 : f64
        %n2_dd01 = arith.addf %n2_dd0, %n2_dd1 : f64
        %n2_dl = arith.addf %n2_dd01, %n2_dd2 : f64
        %n2_stretch = arith.subf %n2_dl, %one : f64
        %n2_f = arith.mulf %quarter_k, %n2_stretch : f64
        %n2_fd0 = arith.mulf %n2_f, %n2_d0 : f64
        %n2_q0 = arith.divf %n2_fd0, %n2_dl : f64
        %n2_F0 = memref.load %F[%c0, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_Fnew0 = arith.addf %n2_F0, %n2_q0 : f64
        memref.store %n2_Fnew0, %F[%c0, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_fd1 = arith.mulf %n2_f, %n2_d1 : f64
        %n2_q1 = arith.divf %n2_fd1, %n2_dl : f64
        %n2_F1 = memref.load %F[%c1, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_Fnew1 = arith.addf %n2_F1, %n2_q1 : f64
        memref.store %n2_Fnew1, %F[%c1, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_fd2 = arith.mulf %n2_f, %n2_d2 : f64
        %n2_q2 = arith.divf %n2_fd2, %n2_dl : f64
        %n2_F2 = memref.load %F[%c2, %i, %n2_j, %k] : memref<3x10x10x10xf64>
        %n2_Fnew2 = arith.addf %n2_F2, %n2_q2 : f64
        memref.store %n2_Fnew2, %F[%c2, %i, %n2_j, %k] : memref<3x10x10x10xf64>
      }
    }
  }
  return
}

func.func @somier_grad(%X: memref<3x10x10x10xf64>, %d_X: memref<3x10x10x10xf64>, %F: memref<3x10x10x10xf64>, %d_F: memref<3x10x10x10xf64>) {
  enzyme.autodiff @somier(%X, %d_X, %F, %d_F) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3x10x10x10xf64>, memref<3x10x10x10xf64>, memref<3x10x10x10xf64>, memref<3x10x10x10xf64>) -> ()
  return
}
