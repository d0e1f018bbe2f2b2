// csrsolve, preset small (R=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/csrsolve.py, not this file.
func.func @csrsolve(%rowptr: memref<5xindex>, %v: memref<20xf64>, %b: memref<4xf64>, %x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %tol = arith.constant 1.000000e-12 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<5xindex>
    %hi = memref.load %rowptr[%i1] : memref<5xindex>
    %bi = memref.load %b[%i] : memref<4xf64>
    %res = scf.while (%t = %zero) : (f64) -> f64 {
      %f0 = arith.subf %t, %bi : f64
      %f, %g = scf.for %k = %lo to %hi step %c1
          iter_args(%fa = %f0, %ga = %one) -> (f64, f64) {
        %vk = memref.load %v[%k] : memref<20xf64>
        %z = arith.mulf %t, %vk : f64
        %th = math.tanh %z : f64
        %t2 = arith.mulf %th, %th : f64
        %om = arith.subf %one, %t2 : f64
        %dg = arith.mulf %vk, %om : f64
        %fn = arith.addf %fa, %th : f64
        %gn = arith.addf %ga, %dg : f64
        scf.yield %fn, %gn : f64, f64
      }
      %step = arith.divf %f, %g : f64
      %nt = arith.subf %t, %step : f64
      %as = math.absf %step : f64
      %c = arith.cmpf ogt, %as, %tol : f64
      scf.condition(%c) %nt : f64
    } do {
    ^bb0(%t2: f64):
      scf.yield %t2 : f64
    }
    memref.store %res, %x[%i] : memref<4xf64>
  }
  return
}

func.func @csrsolve_grad(%rowptr: memref<5xindex>, %v: memref<20xf64>, %d_v: memref<20xf64>, %b: memref<4xf64>, %d_b: memref<4xf64>, %x: memref<4xf64>, %d_x: memref<4xf64>) {
  enzyme.autodiff @csrsolve(%rowptr, %v, %d_v, %b, %d_b, %x, %d_x) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<20xf64>, memref<20xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
