// jacobi2d, preset small (T=2, N=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/jacobi2d.py, not this file.
func.func @jacobi2d(%A: memref<5x5xf64>, %B: memref<5x5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %weight = arith.constant 0.2 : f64
  scf.for %t = %c0 to %c2 step %c1 {
    scf.for %i = %c1 to %c4 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      scf.for %j = %c1 to %c4 step %c1 {
        %jm = arith.subi %j, %c1 : index
        %jp = arith.addi %j, %c1 : index
        %v0 = memref.load %A[%i, %j] : memref<5x5xf64>
        %v1 = memref.load %A[%i, %jm] : memref<5x5xf64>
        %v2 = memref.load %A[%i, %jp] : memref<5x5xf64>
        %v3 = memref.load %A[%ip, %j] : memref<5x5xf64>
        %v4 = memref.load %A[%im, %j] : memref<5x5xf64>
        %s1 = arith.addf %v0, %v1 : f64
        %s2 = arith.addf %s1, %v2 : f64
        %s3 = arith.addf %s2, %v3 : f64
        %s4 = arith.addf %s3, %v4 : f64
        %w = arith.mulf %weight, %s4 : f64
        %act = math.tanh %w : f64
        memref.store %act, %B[%i, %j] : memref<5x5xf64>
      }
    }
    scf.for %i = %c1 to %c4 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      scf.for %j = %c1 to %c4 step %c1 {
        %jm = arith.subi %j, %c1 : index
        %jp = arith.addi %j, %c1 : index
        %v0 = memref.load %B[%i, %j] : memref<5x5xf64>
        %v1 = memref.load %B[%i, %jm] : memref<5x5xf64>
        %v2 = memref.load %B[%i, %jp] : memref<5x5xf64>
        %v3 = memref.load %B[%ip, %j] : memref<5x5xf64>
        %v4 = memref.load %B[%im, %j] : memref<5x5xf64>
        %s1 = arith.addf %v0, %v1 : f64
        %s2 = arith.addf %s1, %v2 : f64
        %s3 = arith.addf %s2, %v3 : f64
        %s4 = arith.addf %s3, %v4 : f64
        %w = arith.mulf %weight, %s4 : f64
        memref.store %w, %A[%i, %j] : memref<5x5xf64>
      }
    }
  }
  return
}

func.func @jacobi2d_grad(%A: memref<5x5xf64>, %d_A: memref<5x5xf64>, %B: memref<5x5xf64>, %d_B: memref<5x5xf64>) {
  enzyme.autodiff @jacobi2d(%A, %d_A, %B, %d_B) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5x5xf64>, memref<5x5xf64>, memref<5x5xf64>, memref<5x5xf64>) -> ()
  return
}
