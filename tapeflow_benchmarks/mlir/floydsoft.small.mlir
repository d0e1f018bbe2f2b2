// floydsoft, preset small (N=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/floydsoft.py, not this file.
func.func @floydsoft(%D: memref<4x3x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %ln2 = arith.constant 0.6931471805599453 : f64
  scf.for %k = %c0 to %c3 step %c1 {
    %k1 = arith.addi %k, %c1 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %dik = memref.load %D[%k, %i, %k] : memref<4x3x3xf64>
      scf.for %j = %c0 to %c3 step %c1 {
        %dij = memref.load %D[%k, %i, %j] : memref<4x3x3xf64>
        %dkj = memref.load %D[%k, %k, %j] : memref<4x3x3xf64>
        %via = arith.addf %dik, %dkj : f64
        %nu = arith.negf %dij : f64
        %nv = arith.negf %via : f64
        %eu = math.exp %nu : f64
        %ev = math.exp %nv : f64
        %sum = arith.addf %eu, %ev : f64
        %l = math.log %sum : f64
        %r = arith.subf %ln2, %l : f64
        memref.store %r, %D[%k1, %i, %j] : memref<4x3x3xf64>
      }
    }
  }
  return
}

func.func @floydsoft_grad(%D: memref<4x3x3xf64>, %d_D: memref<4x3x3xf64>) {
  enzyme.autodiff @floydsoft(%D, %d_D) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4x3x3xf64>, memref<4x3x3xf64>) -> ()
  return
}
