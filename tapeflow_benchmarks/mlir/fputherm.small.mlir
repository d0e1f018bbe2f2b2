// fputherm, preset small (T=2, N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/fputherm.py, not this file.
func.func @fputherm(%u: memref<5xf64>, %v: memref<5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %beta = arith.constant 0.5 : f64
  %dt = arith.constant 0.05 : f64
  %rate = arith.constant 0.1 : f64
  %target = arith.constant 1.5 : f64
  scf.for %t = %c0 to %c2 step %c1 {
    %ke = scf.for %i = %c1 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %ul = memref.load %u[%im] : memref<5xf64>
      %uc = memref.load %u[%i] : memref<5xf64>
      %ur = memref.load %u[%ip] : memref<5xf64>
      %dl = arith.subf %uc, %ul : f64
      %dr = arith.subf %ur, %uc : f64
      %lin = arith.subf %dr, %dl : f64
      %dr2 = arith.mulf %dr, %dr : f64
      %dr3 = arith.mulf %dr2, %dr : f64
      %dl2 = arith.mulf %dl, %dl : f64
      %dl3 = arith.mulf %dl2, %dl : f64
      %cub = arith.subf %dr3, %dl3 : f64
      %bc = arith.mulf %beta, %cub : f64
      %f = arith.addf %lin, %bc : f64
      %kick = arith.mulf %dt, %f : f64
      %vo = memref.load %v[%i] : memref<5xf64>
      %vn = arith.addf %vo, %kick : f64
      memref.store %vn, %v[%i] : memref<5xf64>
      %v2 = arith.mulf %vn, %vn : f64
      %next = arith.addf %acc, %v2 : f64
      scf.yield %next : f64
    }
    %ratio = arith.divf %target, %ke : f64
    %dev = arith.subf %ratio, %one : f64
    %rd = arith.mulf %rate, %dev : f64
    %sq = arith.addf %one, %rd : f64
    %lam = math.sqrt %sq : f64
    scf.for %i = %c1 to %c4 step %c1 {
      %vo = memref.load %v[%i] : memref<5xf64>
      %vs = arith.mulf %vo, %lam : f64
      memref.store %vs, %v[%i] : memref<5xf64>
      %uo = memref.load %u[%i] : memref<5xf64>
      %du = arith.mulf %dt, %vs : f64
      %un = arith.addf %uo, %du : f64
      memref.store %un, %u[%i] : memref<5xf64>
    }
  }
  return
}

func.func @fputherm_grad(%u: memref<5xf64>, %d_u: memref<5xf64>, %v: memref<5xf64>, %d_v: memref<5xf64>) {
  enzyme.autodiff @fputherm(%u, %d_u, %v, %d_v) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>) -> ()
  return
}
