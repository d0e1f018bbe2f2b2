// localattn, preset small (N=6, L=5, D=2, W=1).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/localattn.py, not this file.
func.func @localattn(%Q: memref<?x?xf64>, %K: memref<?x?xf64>, %V: memref<?x?xf64>, %P: memref<?x?xf64>, %O: memref<?x?xf64>, %L: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %scale = arith.constant 7.07106781186547462e-01 : f64
  scf.for %i = %c0 to %L step %c1 {
    %im = arith.subi %i, %c1 : index
    %lo = arith.maxsi %im, %c0 : index
    %ip = arith.addi %i, %c2 : index
    %hi = arith.minsi %ip, %L : index
    %z = scf.for %j = %lo to %hi step %c1 iter_args(%za = %zero) -> (f64) {
      %s = scf.for %d = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
        %q = memref.load %Q[%i, %d] : memref<?x?xf64>
        %k = memref.load %K[%j, %d] : memref<?x?xf64>
        %p = arith.mulf %q, %k : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %ss = arith.mulf %s, %scale : f64
      %e = math.exp %ss : f64
      %jl = arith.subi %j, %lo : index
      memref.store %e, %P[%i, %jl] : memref<?x?xf64>
      %zn = arith.addf %za, %e : f64
      scf.yield %zn : f64
    }
    %inv = arith.divf %one, %z : f64
    scf.for %d = %c0 to %c2 step %c1 {
      %o = scf.for %j = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
        %jl = arith.subi %j, %lo : index
        %p = memref.load %P[%i, %jl] : memref<?x?xf64>
        %v = memref.load %V[%j, %d] : memref<?x?xf64>
        %pv = arith.mulf %p, %v : f64
        %next = arith.addf %acc, %pv : f64
        scf.yield %next : f64
      }
      %oi = arith.mulf %o, %inv : f64
      memref.store %oi, %O[%i, %d] : memref<?x?xf64>
    }
  }
  return
}

func.func @localattn_grad(%Q: memref<?x?xf64>, %d_Q: memref<?x?xf64>, %K: memref<?x?xf64>, %d_K: memref<?x?xf64>, %V: memref<?x?xf64>, %d_V: memref<?x?xf64>, %P: memref<?x?xf64>, %d_P: memref<?x?xf64>, %O: memref<?x?xf64>, %d_O: memref<?x?xf64>, %L: index) {
  enzyme.autodiff @localattn(%Q, %d_Q, %K, %d_K, %V, %d_V, %P, %d_P, %O, %d_O, %L) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}
