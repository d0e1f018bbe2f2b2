// causal, preset small (L=4, D=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/causal.py, not this file.
func.func @causal(%Q: memref<4x2xf64>, %K: memref<4x2xf64>, %V: memref<4x2xf64>, %P: memref<4x4xf64>, %O: memref<4x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %scale = arith.constant 0.7071067811865475 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %z = scf.for %j = %c0 to %i1 step %c1 iter_args(%zacc = %zero) -> (f64) {
      %s = scf.for %d = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
        %q = memref.load %Q[%i, %d] : memref<4x2xf64>
        %k = memref.load %K[%j, %d] : memref<4x2xf64>
        %p = arith.mulf %q, %k : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %scaled = arith.mulf %s, %scale : f64
      %e = math.exp %scaled : f64
      memref.store %e, %P[%i, %j] : memref<4x4xf64>
      %znext = arith.addf %zacc, %e : f64
      scf.yield %znext : f64
    }
    %inv = arith.divf %one, %z : f64
    scf.for %j = %c0 to %i1 step %c1 {
      %e = memref.load %P[%i, %j] : memref<4x4xf64>
      %w = arith.mulf %e, %inv : f64
      memref.store %w, %P[%i, %j] : memref<4x4xf64>
    }
    scf.for %d = %c0 to %c2 step %c1 {
      %o = scf.for %j = %c0 to %i1 step %c1 iter_args(%acc = %zero) -> (f64) {
        %w = memref.load %P[%i, %j] : memref<4x4xf64>
        %v = memref.load %V[%j, %d] : memref<4x2xf64>
        %p = arith.mulf %w, %v : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      memref.store %o, %O[%i, %d] : memref<4x2xf64>
    }
  }
  return
}

func.func @causal_grad(%Q: memref<4x2xf64>, %d_Q: memref<4x2xf64>, %K: memref<4x2xf64>, %d_K: memref<4x2xf64>, %V: memref<4x2xf64>, %d_V: memref<4x2xf64>, %P: memref<4x4xf64>, %d_P: memref<4x4xf64>, %O: memref<4x2xf64>, %d_O: memref<4x2xf64>) {
  enzyme.autodiff @causal(%Q, %d_Q, %K, %d_K, %V, %d_V, %P, %d_P, %O, %d_O) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x2xf64>, memref<4x2xf64>, memref<4x2xf64>, memref<4x2xf64>, memref<4x2xf64>, memref<4x2xf64>, memref<4x4xf64>, memref<4x4xf64>, memref<4x2xf64>, memref<4x2xf64>) -> ()
  return
}
