// doitgen, preset small (NR=2, NQ=3, NP=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/doitgen.py, not this file.
func.func @doitgen(%A: memref<2x3x4xf64>, %C4: memref<4x4xf64>, %sum: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c2 step %c1 {
    scf.for %q = %c0 to %c3 step %c1 {
      scf.for %p = %c0 to %c4 step %c1 {
        %t = scf.for %s = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
          %a = memref.load %A[%r, %q, %s] : memref<2x3x4xf64>
          %c = memref.load %C4[%s, %p] : memref<4x4xf64>
          %m = arith.mulf %a, %c : f64
          %next = arith.addf %acc, %m : f64
          scf.yield %next : f64
        }
        memref.store %t, %sum[%p] : memref<4xf64>
      }
      scf.for %p = %c0 to %c4 step %c1 {
        %v = memref.load %sum[%p] : memref<4xf64>
        memref.store %v, %A[%r, %q, %p] : memref<2x3x4xf64>
      }
    }
  }
  return
}

func.func @doitgen_grad(%A: memref<2x3x4xf64>, %d_A: memref<2x3x4xf64>, %C4: memref<4x4xf64>, %d_C4: memref<4x4xf64>, %sum: memref<4xf64>, %d_sum: memref<4xf64>) {
  enzyme.autodiff @doitgen(%A, %d_A, %C4, %d_C4, %sum, %d_sum) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x3x4xf64>, memref<2x3x4xf64>, memref<4x4xf64>, memref<4x4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
