// fdtd2d, preset paper (TMAX=16, NX=24, NY=24).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/fdtd2d.py, not this file.
func.func @fdtd2d(%ex: memref<24x24xf64>, %ey: memref<24x24xf64>, %hz: memref<24x24xf64>, %fict: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c23 = arith.constant 23 : index
  %c24 = arith.constant 24 : index
  %half = arith.constant 0.5 : f64
  %c07 = arith.constant 0.7 : f64
  scf.for %t = %c0 to %c16 step %c1 {
    %src = memref.load %fict[%t] : memref<16xf64>
    scf.for %j = %c0 to %c24 step %c1 {
      memref.store %src, %ey[%c0, %j] : memref<24x24xf64>
    }
    scf.for %i = %c1 to %c24 step %c1 {
      %im = arith.subi %i, %c1 : index
      scf.for %j = %c0 to %c24 step %c1 {
        %e = memref.load %ey[%i, %j] : memref<24x24xf64>
        %h = memref.load %hz[%i, %j] : memref<24x24xf64>
        %hm = memref.load %hz[%im, %j] : memref<24x24xf64>
        %dh = arith.subf %h, %hm : f64
        %w = arith.mulf %half, %dh : f64
        %new = arith.subf %e, %w : f64
        memref.store %new, %ey[%i, %j] : memref<24x24xf64>
      }
    }
    scf.for %i = %c0 to %c24 step %c1 {
      scf.for %j = %c1 to %c24 step %c1 {
        %jm = arith.subi %j, %c1 : index
        %e = memref.load %ex[%i, %j] : memref<24x24xf64>
        %h = memref.load %hz[%i, %j] : memref<24x24xf64>
        %hm = memref.load %hz[%i, %jm] : memref<24x24xf64>
        %dh = arith.subf %h, %hm : f64
        %w = arith.mulf %half, %dh : f64
        %new = arith.subf %e, %w : f64
        memref.store %new, %ex[%i, %j] : memref<24x24xf64>
      }
    }
    scf.for %i = %c0 to %c23 step %c1 {
      %ip = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %c23 step %c1 {
        %jp = arith.addi %j, %c1 : index
        %h = memref.load %hz[%i, %j] : memref<24x24xf64>
        %xr = memref.load %ex[%i, %jp] : memref<24x24xf64>
        %x0 = memref.load %ex[%i, %j] : memref<24x24xf64>
        %yd = memref.load %ey[%ip, %j] : memref<24x24xf64>
        %y0 = memref.load %ey[%i, %j] : memref<24x24xf64>
        %dx = arith.subf %xr, %x0 : f64
        %s1 = arith.addf %dx, %yd : f64
        %curl = arith.subf %s1, %y0 : f64
        %w = arith.mulf %c07, %curl : f64
        %arg = arith.subf %h, %w : f64
        %new = math.tanh %arg : f64
        memref.store %new, %hz[%i, %j] : memref<24x24xf64>
      }
    }
  }
  return
}

func.func @fdtd2d_grad(%ex: memref<24x24xf64>, %d_ex: memref<24x24xf64>, %ey: memref<24x24xf64>, %d_ey: memref<24x24xf64>, %hz: memref<24x24xf64>, %d_hz: memref<24x24xf64>, %fict: memref<16xf64>, %d_fict: memref<16xf64>) {
  enzyme.autodiff @fdtd2d(%ex, %d_ex, %ey, %d_ey, %hz, %d_hz, %fict, %d_fict) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<24x24xf64>, memref<24x24xf64>, memref<24x24xf64>, memref<24x24xf64>, memref<24x24xf64>, memref<24x24xf64>, memref<16xf64>, memref<16xf64>) -> ()
  return
}
