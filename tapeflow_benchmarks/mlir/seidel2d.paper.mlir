// seidel2d, preset paper (T=10, N=24).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/seidel2d.py, not this file.
func.func @seidel2d(%A: memref<24x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c23 = arith.constant 23 : index
  %divisor = arith.constant 9.0 : f64
  scf.for %t = %c0 to %c10 step %c1 {
    scf.for %i = %c1 to %c23 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      scf.for %j = %c1 to %c23 step %c1 {
        %jm = arith.subi %j, %c1 : index
        %jp = arith.addi %j, %c1 : index
        %v0 = memref.load %A[%im, %jm] : memref<24x24xf64>
        %v1 = memref.load %A[%im, %j] : memref<24x24xf64>
        %v2 = memref.load %A[%im, %jp] : memref<24x24xf64>
        %v3 = memref.load %A[%i, %jm] : memref<24x24xf64>
        %v4 = memref.load %A[%i, %j] : memref<24x24xf64>
        %v5 = memref.load %A[%i, %jp] : memref<24x24xf64>
        %v6 = memref.load %A[%ip, %jm] : memref<24x24xf64>
        %v7 = memref.load %A[%ip, %j] : memref<24x24xf64>
        %v8 = memref.load %A[%ip, %jp] : memref<24x24xf64>
        %s1 = arith.addf %v0, %v1 : f64
        %s2 = arith.addf %s1, %v2 : f64
        %s3 = arith.addf %s2, %v3 : f64
        %s4 = arith.addf %s3, %v4 : f64
        %s5 = arith.addf %s4, %v5 : f64
        %s6 = arith.addf %s5, %v6 : f64
        %s7 = arith.addf %s6, %v7 : f64
        %s8 = arith.addf %s7, %v8 : f64
        %w = arith.divf %s8, %divisor : f64
        %act = math.tanh %w : f64
        memref.store %act, %A[%i, %j] : memref<24x24xf64>
      }
    }
  }
  return
}

func.func @seidel2d_grad(%A: memref<24x24xf64>, %d_A: memref<24x24xf64>) {
  enzyme.autodiff @seidel2d(%A, %d_A) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<24x24xf64>, memref<24x24xf64>) -> ()
  return
}
