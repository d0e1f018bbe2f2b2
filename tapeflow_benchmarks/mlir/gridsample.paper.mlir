// gridsample, preset paper (Q=768, C=8, H=32, W=32).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gridsample.py, not this file.
func.func @gridsample(%U: memref<8x32x32xf64>, %grid: memref<768x2xf64>, %out: memref<8x768xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c30 = arith.constant 30 : index
  %c768 = arith.constant 768 : index
  %one = arith.constant 1.0 : f64
  scf.for %p = %c0 to %c768 step %c1 {
    %gx = memref.load %grid[%p, %c0] : memref<768x2xf64>
    %gy = memref.load %grid[%p, %c1] : memref<768x2xf64>
    %xi = arith.fptosi %gx : f64 to i64
    %yi = arith.fptosi %gy : f64 to i64
    %xr = arith.index_cast %xi : i64 to index
    %yr = arith.index_cast %yi : i64 to index
    %x0 = arith.minsi %xr, %c30 : index
    %y0 = arith.minsi %yr, %c30 : index
    %x1 = arith.addi %x0, %c1 : index
    %y1 = arith.addi %y0, %c1 : index
    %x0i = arith.index_cast %x0 : index to i64
    %y0i = arith.index_cast %y0 : index to i64
    %x0f = arith.sitofp %x0i : i64 to f64
    %y0f = arith.sitofp %y0i : i64 to f64
    %wx = arith.subf %gx, %x0f : f64
    %wy = arith.subf %gy, %y0f : f64
    %vx = arith.subf %one, %wx : f64
    %vy = arith.subf %one, %wy : f64
    %w00 = arith.mulf %vx, %vy : f64
    %w01 = arith.mulf %wx, %vy : f64
    %w10 = arith.mulf %vx, %wy : f64
    %w11 = arith.mulf %wx, %wy : f64
    scf.for %c = %c0 to %c8 step %c1 {
      %u00 = memref.load %U[%c, %y0, %x0] : memref<8x32x32xf64>
      %u01 = memref.load %U[%c, %y0, %x1] : memref<8x32x32xf64>
      %u10 = memref.load %U[%c, %y1, %x0] : memref<8x32x32xf64>
      %u11 = memref.load %U[%c, %y1, %x1] : memref<8x32x32xf64>
      %a = arith.mulf %w00, %u00 : f64
      %b = arith.mulf %w01, %u01 : f64
      %d = arith.mulf %w10, %u10 : f64
      %e = arith.mulf %w11, %u11 : f64
      %ab = arith.addf %a, %b : f64
      %de = arith.addf %d, %e : f64
      %v = arith.addf %ab, %de : f64
      memref.store %v, %out[%c, %p] : memref<8x768xf64>
    }
  }
  return
}

func.func @gridsample_grad(%U: memref<8x32x32xf64>, %d_U: memref<8x32x32xf64>, %grid: memref<768x2xf64>, %d_grid: memref<768x2xf64>, %out: memref<8x768xf64>, %d_out: memref<8x768xf64>) {
  enzyme.autodiff @gridsample(%U, %d_U, %grid, %d_grid, %out, %d_out) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x32x32xf64>, memref<8x32x32xf64>, memref<768x2xf64>, memref<768x2xf64>, memref<8x768xf64>, memref<8x768xf64>) -> ()
  return
}
