// lorenz96, preset small (TM=3, T=2, N=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/lorenz96.py, not this file.
func.func @lorenz96(%x: memref<4x4xf64>, %T: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %forcing = arith.constant 8.0 : f64
  %half = arith.constant 0.005 : f64
  %step = arith.constant 0.01 : f64
  %sixth = arith.constant 0.0016666666666666668 : f64
  %two = arith.constant 2.0 : f64
  scf.for %t = %c0 to %T step %c1 {
    %t1 = arith.addi %t, %c1 : index
    %y_0 = memref.load %x[%t, %c0] : memref<4x4xf64>
    %y_1 = memref.load %x[%t, %c1] : memref<4x4xf64>
    %y_2 = memref.load %x[%t, %c2] : memref<4x4xf64>
    %y_3 = memref.load %x[%t, %c3] : memref<4x4xf64>
    %ka_0d = arith.subf %y_1, %y_2 : f64
    %ka_0p = arith.mulf %ka_0d, %y_3 : f64
    %ka_0m = arith.subf %ka_0p, %y_0 : f64
    %ka_0 = arith.addf %ka_0m, %forcing : f64
    %ka_1d = arith.subf %y_2, %y_3 : f64
    %ka_1p = arith.mulf %ka_1d, %y_0 : f64
    %ka_1m = arith.subf %ka_1p, %y_1 : f64
    %ka_1 = arith.addf %ka_1m, %forcing : f64
    %ka_2d = arith.subf %y_3, %y_0 : f64
    %ka_2p = arith.mulf %ka_2d, %y_1 : f64
    %ka_2m = arith.subf %ka_2p, %y_2 : f64
    %ka_2 = arith.addf %ka_2m, %forcing : f64
    %ka_3d = arith.subf %y_0, %y_1 : f64
    %ka_3p = arith.mulf %ka_3d, %y_2 : f64
    %ka_3m = arith.subf %ka_3p, %y_3 : f64
    %ka_3 = arith.addf %ka_3m, %forcing : f64
    %yb_0s = arith.mulf %half, %ka_0 : f64
    %yb_0 = arith.addf %y_0, %yb_0s : f64
    %yb_1s = arith.mulf %half, %ka_1 : f64
    %yb_1 = arith.addf %y_1, %yb_1s : f64
    %yb_2s = arith.mulf %half, %ka_2 : f64
    %yb_2 = arith.addf %y_2, %yb_2s : f64
    %yb_3s = arith.mulf %half, %ka_3 : f64
    %yb_3 = arith.addf %y_3, %yb_3s : f64
    %kb_0d = arith.subf %yb_1, %yb_2 : f64
    %kb_0p = arith.mulf %kb_0d, %yb_3 : f64
    %kb_0m = arith.subf %kb_0p, %yb_0 : f64
    %kb_0 = arith.addf %kb_0m, %forcing : f64
    %kb_1d = arith.subf %yb_2, %yb_3 : f64
    %kb_1p = arith.mulf %kb_1d, %yb_0 : f64
    %kb_1m = arith.subf %kb_1p, %yb_1 : f64
    %kb_1 = arith.addf %kb_1m, %forcing : f64
    %kb_2d = arith.subf %yb_3, %yb_0 : f64
    %kb_2p = arith.mulf %kb_2d, %yb_1 : f64
    %kb_2m = arith.subf %kb_2p, %yb_2 : f64
    %kb_2 = arith.addf %kb_2m, %forcing : f64
    %kb_3d = arith.subf %yb_0, %yb_1 : f64
    %kb_3p = arith.mulf %kb_3d, %yb_2 : f64
    %kb_3m = arith.subf %kb_3p, %yb_3 : f64
    %kb_3 = arith.addf %kb_3m, %forcing : f64
    %yc_0s = arith.mulf %half, %kb_0 : f64
    %yc_0 = arith.addf %y_0, %yc_0s : f64
    %yc_1s = arith.mulf %half, %kb_1 : f64
    %yc_1 = arith.addf %y_1, %yc_1s : f64
    %yc_2s = arith.mulf %half, %kb_2 : f64
    %yc_2 = arith.addf %y_2, %yc_2s : f64
    %yc_3s = arith.mulf %half, %kb_3 : f64
    %yc_3 = arith.addf %y_3, %yc_3s : f64
    %kc_0d = arith.subf %yc_1, %yc_2 : f64
    %kc_0p = arith.mulf %kc_0d, %yc_3 : f64
    %kc_0m = arith.subf %kc_0p, %yc_0 : f64
    %kc_0 = arith.addf %kc_0m, %forcing : f64
    %kc_1d = arith.subf %yc_2, %yc_3 : f64
    %kc_1p = arith.mulf %kc_1d, %yc_0 : f64
    %kc_1m = arith.subf %kc_1p, %yc_1 : f64
    %kc_1 = arith.addf %kc_1m, %forcing : f64
    %kc_2d = arith.subf %yc_3, %yc_0 : f64
    %kc_2p = arith.mulf %kc_2d, %yc_1 : f64
    %kc_2m = arith.subf %kc_2p, %yc_2 : f64
    %kc_2 = arith.addf %kc_2m, %forcing : f64
    %kc_3d = arith.subf %yc_0, %yc_1 : f64
    %kc_3p = arith.mulf %kc_3d, %yc_2 : f64
    %kc_3m = arith.subf %kc_3p, %yc_3 : f64
    %kc_3 = arith.addf %kc_3m, %forcing : f64
    %yd_0s = arith.mulf %step, %kc_0 : f64
    %yd_0 = arith.addf %y_0, %yd_0s : f64
    %yd_1s = arith.mulf %step, %kc_1 : f64
    %yd_1 = arith.addf %y_1, %yd_1s : f64
    %yd_2s = arith.mulf %step, %kc_2 : f64
    %yd_2 = arith.addf %y_2, %yd_2s : f64
    %yd_3s = arith.mulf %step, %kc_3 : f64
    %yd_3 = arith.addf %y_3, %yd_3s : f64
    %kd_0d = arith.subf %yd_1, %yd_2 : f64
    %kd_0p = arith.mulf %kd_0d, %yd_3 : f64
    %kd_0m = arith.subf %kd_0p, %yd_0 : f64
    %kd_0 = arith.addf %kd_0m, %forcing : f64
    %kd_1d = arith.subf %yd_2, %yd_3 : f64
    %kd_1p = arith.mulf %kd_1d, %yd_0 : f64
    %kd_1m = arith.subf %kd_1p, %yd_1 : f64
    %kd_1 = arith.addf %kd_1m, %forcing : f64
    %kd_2d = arith.subf %yd_3, %yd_0 : f64
    %kd_2p = arith.mulf %kd_2d, %yd_1 : f64
    %kd_2m = arith.subf %kd_2p, %yd_2 : f64
    %kd_2 = arith.addf %kd_2m, %forcing : f64
    %kd_3d = arith.subf %yd_0, %yd_1 : f64
    %kd_3p = arith.mulf %kd_3d, %yd_2 : f64
    %kd_3m = arith.subf %kd_3p, %yd_3 : f64
    %kd_3 = arith.addf %kd_3m, %forcing : f64
    %s23_0 = arith.addf %kb_0, %kc_0 : f64
    %s23d_0 = arith.mulf %two, %s23_0 : f64
    %s14_0 = arith.addf %ka_0, %kd_0 : f64
    %sum_0 = arith.addf %s14_0, %s23d_0 : f64
    %inc_0 = arith.mulf %sixth, %sum_0 : f64
    %new_0 = arith.addf %y_0, %inc_0 : f64
    memref.store %new_0, %x[%t1, %c0] : memref<4x4xf64>
    %s23_1 = arith.addf %kb_1, %kc_1 : f64
    %s23d_1 = arith.mulf %two, %s23_1 : f64
    %s14_1 = arith.addf %ka_1, %kd_1 : f64
    %sum_1 = arith.addf %s14_1, %s23d_1 : f64
    %inc_1 = arith.mulf %sixth, %sum_1 : f64
    %new_1 = arith.addf %y_1, %inc_1 : f64
    memref.store %new_1, %x[%t1, %c1] : memref<4x4xf64>
    %s23_2 = arith.addf %kb_2, %kc_2 : f64
    %s23d_2 = arith.mulf %two, %s23_2 : f64
    %s14_2 = arith.addf %ka_2, %kd_2 : f64
    %sum_2 = arith.addf %s14_2, %s23d_2 : f64
    %inc_2 = arith.mulf %sixth, %sum_2 : f64
    %new_2 = arith.addf %y_2, %inc_2 : f64
    memref.store %new_2, %x[%t1, %c2] : memref<4x4xf64>
    %s23_3 = arith.addf %kb_3, %kc_3 : f64
    %s23d_3 = arith.mulf %two, %s23_3 : f64
    %s14_3 = arith.addf %ka_3, %kd_3 : f64
    %sum_3 = arith.addf %s14_3, %s23d_3 : f64
    %inc_3 = arith.mulf %sixth, %sum_3 : f64
    %new_3 = arith.addf %y_3, %inc_3 : f64
    memref.store %new_3, %x[%t1, %c3] : memref<4x4xf64>
  }
  return
}

func.func @lorenz96_grad(%x: memref<4x4xf64>, %d_x: memref<4x4xf64>, %T: index) {
  enzyme.autodiff @lorenz96(%x, %d_x, %T) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<4x4xf64>, memref<4x4xf64>, index) -> ()
  return
}
