// normals, preset paper (N=2048).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/normals.py, not this file.
func.func @normals(%u: memref<2048x3xf64>, %v: memref<2048x3xf64>, %n: memref<2048x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %p = %c0 to %c2048 step %c1 {
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %last = arith.cmpi eq, %k, %c2 : index
      %first = arith.cmpi eq, %k, %c0 : index
      %kp = arith.addi %k, %c1 : index
      %km = arith.subi %k, %c1 : index
      %k1 = arith.select %last, %c0, %kp : index
      %k2 = arith.select %first, %c2, %km : index
      %u1 = memref.load %u[%p, %k1] : memref<2048x3xf64>
      %u2 = memref.load %u[%p, %k2] : memref<2048x3xf64>
      %v1 = memref.load %v[%p, %k1] : memref<2048x3xf64>
      %v2 = memref.load %v[%p, %k2] : memref<2048x3xf64>
      %a = arith.mulf %u1, %v2 : f64
      %b = arith.mulf %u2, %v1 : f64
      %c = arith.subf %a, %b : f64
      memref.store %c, %n[%p, %k] : memref<2048x3xf64>
      %sq = arith.mulf %c, %c : f64
      %next = arith.addf %acc, %sq : f64
      scf.yield %next : f64
    }
    %len = math.sqrt %s : f64
    %inv = arith.divf %one, %len : f64
    scf.for %k = %c0 to %c3 step %c1 {
      %c = memref.load %n[%p, %k] : memref<2048x3xf64>
      %o = arith.mulf %c, %inv : f64
      memref.store %o, %n[%p, %k] : memref<2048x3xf64>
    }
  }
  return
}

func.func @normals_grad(%u: memref<2048x3xf64>, %d_u: memref<2048x3xf64>, %v: memref<2048x3xf64>, %d_v: memref<2048x3xf64>, %n: memref<2048x3xf64>, %d_n: memref<2048x3xf64>) {
  enzyme.autodiff @normals(%u, %d_u, %v, %d_v, %n, %d_n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2048x3xf64>, memref<2048x3xf64>, memref<2048x3xf64>, memref<2048x3xf64>, memref<2048x3xf64>, memref<2048x3xf64>) -> ()
  return
}
