// gswhile, preset small (S=2, N=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gswhile.py, not this file.
func.func @gswhile(%a: memref<2x5xf64>, %d: memref<2x5xf64>, %f: memref<2x5xf64>, %u: memref<2x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  %inf = arith.constant 1.0e30 : f64
  %tol = arith.constant 1.0e-24 : f64
  scf.for %s = %c0 to %c2 step %c1 {
    %res:2 = scf.while (%k = %c0, %dl = %inf) : (index, f64) -> (index, f64) {
      %more = arith.cmpi slt, %k, %c64 : index
      %big = arith.cmpf ogt, %dl, %tol : f64
      %go = arith.andi %more, %big : i1
      scf.condition(%go) %k, %dl : index, f64
    } do {
    ^bb0(%k2: index, %dl2: f64):
      %dn = scf.for %i = %c1 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
        %im = arith.subi %i, %c1 : index
        %ip = arith.addi %i, %c1 : index
        %ul = memref.load %u[%s, %im] : memref<2x5xf64>
        %ur = memref.load %u[%s, %ip] : memref<2x5xf64>
        %uo = memref.load %u[%s, %i] : memref<2x5xf64>
        %ai = memref.load %a[%s, %i] : memref<2x5xf64>
        %di = memref.load %d[%s, %i] : memref<2x5xf64>
        %fi = memref.load %f[%s, %i] : memref<2x5xf64>
        %nb = arith.addf %ul, %ur : f64
        %an = arith.mulf %ai, %nb : f64
        %rhs = arith.subf %fi, %an : f64
        %v = arith.divf %rhs, %di : f64
        %ch = arith.subf %v, %uo : f64
        %sq = arith.mulf %ch, %ch : f64
        %next = arith.addf %acc, %sq : f64
        memref.store %v, %u[%s, %i] : memref<2x5xf64>
        scf.yield %next : f64
      }
      %k3 = arith.addi %k2, %c1 : index
      scf.yield %k3, %dn : index, f64
    }
  }
  return
}

func.func @gswhile_grad(%a: memref<2x5xf64>, %d_a: memref<2x5xf64>, %d: memref<2x5xf64>, %d_d: memref<2x5xf64>, %f: memref<2x5xf64>, %d_f: memref<2x5xf64>, %u: memref<2x5xf64>, %d_u: memref<2x5xf64>) {
  enzyme.autodiff @gswhile(%a, %d_a, %d, %d_d, %f, %d_f, %u, %d_u) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x5xf64>, memref<2x5xf64>, memref<2x5xf64>, memref<2x5xf64>, memref<2x5xf64>, memref<2x5xf64>, memref<2x5xf64>, memref<2x5xf64>) -> ()
  return
}
