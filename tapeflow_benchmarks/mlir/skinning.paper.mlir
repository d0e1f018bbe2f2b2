// skinning, preset paper (V=1024, J=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/skinning.py, not this file.
func.func @skinning(%joint: memref<1024x4xindex>, %weight: memref<1024x4xf64>, %T: memref<16x3x4xf64>, %p: memref<1024x3xf64>, %out: memref<1024x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  scf.for %v = %c0 to %c1024 step %c1 {
    %p0 = memref.load %p[%v, %c0] : memref<1024x3xf64>
    %p1 = memref.load %p[%v, %c1] : memref<1024x3xf64>
    %p2 = memref.load %p[%v, %c2] : memref<1024x3xf64>
    scf.for %b = %c0 to %c4 step %c1 {
      %j = memref.load %joint[%v, %b] : memref<1024x4xindex>
      %w = memref.load %weight[%v, %b] : memref<1024x4xf64>
      scf.for %k = %c0 to %c3 step %c1 {
        %t0 = memref.load %T[%j, %k, %c0] : memref<16x3x4xf64>
        %t1 = memref.load %T[%j, %k, %c1] : memref<16x3x4xf64>
        %t2 = memref.load %T[%j, %k, %c2] : memref<16x3x4xf64>
        %t3 = memref.load %T[%j, %k, %c3] : memref<16x3x4xf64>
        %a0 = arith.mulf %t0, %p0 : f64
        %a1 = arith.mulf %t1, %p1 : f64
        %a2 = arith.mulf %t2, %p2 : f64
        %s0 = arith.addf %a0, %a1 : f64
        %s1 = arith.addf %s0, %a2 : f64
        %s2 = arith.addf %s1, %t3 : f64
        %ws = arith.mulf %w, %s2 : f64
        %o = memref.load %out[%v, %k] : memref<1024x3xf64>
        %on = arith.addf %o, %ws : f64
        memref.store %on, %out[%v, %k] : memref<1024x3xf64>
      }
    }
  }
  return
}

func.func @skinning_grad(%joint: memref<1024x4xindex>, %weight: memref<1024x4xf64>, %d_weight: memref<1024x4xf64>, %T: memref<16x3x4xf64>, %d_T: memref<16x3x4xf64>, %p: memref<1024x3xf64>, %d_p: memref<1024x3xf64>, %out: memref<1024x3xf64>, %d_out: memref<1024x3xf64>) {
  enzyme.autodiff @skinning(%joint, %weight, %d_weight, %T, %d_T, %p, %d_p, %out, %d_out) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<1024x4xindex>, memref<1024x4xf64>, memref<1024x4xf64>, memref<16x3x4xf64>, memref<16x3x4xf64>, memref<1024x3xf64>, memref<1024x3xf64>, memref<1024x3xf64>, memref<1024x3xf64>) -> ()
  return
}
