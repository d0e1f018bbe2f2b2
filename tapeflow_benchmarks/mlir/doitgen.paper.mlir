// doitgen, preset paper (NR=10, NQ=8, NP=12).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/doitgen.py, not this file.
func.func @doitgen(%A: memref<10x8x12xf64>, %C4: memref<12x12xf64>, %sum: memref<12xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c12 = arith.constant 12 : index
  %zero = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c10 step %c1 {
    scf.for %q = %c0 to %c8 step %c1 {
      scf.for %p = %c0 to %c12 step %c1 {
        %t = scf.for %s = %c0 to %c12 step %c1 iter_args(%acc = %zero) -> (f64) {
          %a = memref.load %A[%r, %q, %s] : memref<10x8x12xf64>
          %c = memref.load %C4[%s, %p] : memref<12x12xf64>
          %m = arith.mulf %a, %c : f64
          %next = arith.addf %acc, %m : f64
          scf.yield %next : f64
        }
        memref.store %t, %sum[%p] : memref<12xf64>
      }
      scf.for %p = %c0 to %c12 step %c1 {
        %v = memref.load %sum[%p] : memref<12xf64>
        memref.store %v, %A[%r, %q, %p] : memref<10x8x12xf64>
      }
    }
  }
  return
}

func.func @doitgen_grad(%A: memref<10x8x12xf64>, %d_A: memref<10x8x12xf64>, %C4: memref<12x12xf64>, %d_C4: memref<12x12xf64>, %sum: memref<12xf64>, %d_sum: memref<12xf64>) {
  enzyme.autodiff @doitgen(%A, %d_A, %C4, %d_C4, %sum, %d_sum) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<10x8x12xf64>, memref<10x8x12xf64>, memref<12x12xf64>, memref<12x12xf64>, memref<12xf64>, memref<12xf64>) -> ()
  return
}
