// bicg, preset paper (N=96, M=96).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/bicg.py, not this file.
func.func @bicg(%A: memref<96x96xf64>, %r: memref<96xf64>, %p: memref<96xf64>, %s: memref<96xf64>, %q: memref<96xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  %zero = arith.constant 0.0 : f64
  scf.for %j = %c0 to %c96 step %c1 {
    memref.store %zero, %s[%j] : memref<96xf64>
  }
  scf.for %i = %c0 to %c96 step %c1 {
    %ri = memref.load %r[%i] : memref<96xf64>
    %qs = scf.for %j = %c0 to %c96 step %c1 iter_args(%acc = %zero) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<96x96xf64>
      %sj = memref.load %s[%j] : memref<96xf64>
      %ra = arith.mulf %ri, %a : f64
      %sn = arith.addf %sj, %ra : f64
      memref.store %sn, %s[%j] : memref<96xf64>
      %pj = memref.load %p[%j] : memref<96xf64>
      %ap = arith.mulf %a, %pj : f64
      %next = arith.addf %acc, %ap : f64
      scf.yield %next : f64
    }
    %act = math.tanh %qs : f64
    memref.store %act, %q[%i] : memref<96xf64>
  }
  return
}

func.func @bicg_grad(%A: memref<96x96xf64>, %d_A: memref<96x96xf64>, %r: memref<96xf64>, %d_r: memref<96xf64>, %p: memref<96xf64>, %d_p: memref<96xf64>, %s: memref<96xf64>, %d_s: memref<96xf64>, %q: memref<96xf64>, %d_q: memref<96xf64>) {
  enzyme.autodiff @bicg(%A, %d_A, %r, %d_r, %p, %d_p, %s, %d_s, %q, %d_q) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<96x96xf64>, memref<96x96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>) -> ()
  return
}
