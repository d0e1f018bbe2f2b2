// hmmfwd, preset paper (T=32, S=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/hmmfwd.py, not this file.
func.func @hmmfwd(%A: memref<16x16xf64>, %E: memref<32x16xf64>, %alpha: memref<32x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f64
  %lowest = arith.constant -1.0e300 : f64
  scf.for %t = %c1 to %c32 step %c1 {
    %tp = arith.subi %t, %c1 : index
    scf.for %j = %c0 to %c16 step %c1 {
      %m = scf.for %i = %c0 to %c16 step %c1 iter_args(%mk = %lowest) -> (f64) {
        %av = memref.load %alpha[%tp, %i] : memref<32x16xf64>
        %tr = memref.load %A[%i, %j] : memref<16x16xf64>
        %v = arith.addf %av, %tr : f64
        %mn = arith.maximumf %mk, %v : f64
        scf.yield %mn : f64
      }
      %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%sk = %zero) -> (f64) {
        %av = memref.load %alpha[%tp, %i] : memref<32x16xf64>
        %tr = memref.load %A[%i, %j] : memref<16x16xf64>
        %v = arith.addf %av, %tr : f64
        %d = arith.subf %v, %m : f64
        %e = math.exp %d : f64
        %sn = arith.addf %sk, %e : f64
        scf.yield %sn : f64
      }
      %ls = math.log %s : f64
      %lse = arith.addf %m, %ls : f64
      %em = memref.load %E[%t, %j] : memref<32x16xf64>
      %new = arith.addf %lse, %em : f64
      memref.store %new, %alpha[%t, %j] : memref<32x16xf64>
    }
  }
  return
}

func.func @hmmfwd_grad(%A: memref<16x16xf64>, %d_A: memref<16x16xf64>, %E: memref<32x16xf64>, %d_E: memref<32x16xf64>, %alpha: memref<32x16xf64>, %d_alpha: memref<32x16xf64>) {
  enzyme.autodiff @hmmfwd(%A, %d_A, %E, %d_E, %alpha, %d_alpha) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<16x16xf64>, memref<16x16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<32x16xf64>, memref<32x16xf64>) -> ()
  return
}
