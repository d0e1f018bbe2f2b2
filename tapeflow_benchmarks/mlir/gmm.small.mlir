// gmm, preset small (N=3, K=2, D=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/gmm.py, not this file.
func.func @gmm(%x: memref<3x2xf64>, %mu: memref<2x2xf64>, %q: memref<2x2xf64>, %alpha: memref<2xf64>, %t: memref<2xf64>, %ll: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %ninf = arith.constant -1.0e300 : f64
  scf.for %i = %c0 to %c3 step %c1 {
    %m = scf.for %k = %c0 to %c2 step %c1 iter_args(%mk = %ninf) -> (f64) {
      %ss, %sq = scf.for %d = %c0 to %c2 step %c1
          iter_args(%a = %zero, %b = %zero) -> (f64, f64) {
        %qv = memref.load %q[%k, %d] : memref<2x2xf64>
        %xv = memref.load %x[%i, %d] : memref<3x2xf64>
        %mv = memref.load %mu[%k, %d] : memref<2x2xf64>
        %e = math.exp %qv : f64
        %diff = arith.subf %xv, %mv : f64
        %z = arith.mulf %e, %diff : f64
        %zz = arith.mulf %z, %z : f64
        %a1 = arith.addf %a, %zz : f64
        %b1 = arith.addf %b, %qv : f64
        scf.yield %a1, %b1 : f64, f64
      }
      %al = memref.load %alpha[%k] : memref<2xf64>
      %h = arith.mulf %half, %ss : f64
      %u = arith.addf %al, %sq : f64
      %tk = arith.subf %u, %h : f64
      memref.store %tk, %t[%k] : memref<2xf64>
      %mn = arith.maximumf %mk, %tk : f64
      scf.yield %mn : f64
    }
    %s = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
      %tk = memref.load %t[%k] : memref<2xf64>
      %dm = arith.subf %tk, %m : f64
      %e = math.exp %dm : f64
      %next = arith.addf %acc, %e : f64
      scf.yield %next : f64
    }
    %ls = math.log %s : f64
    %l = arith.addf %m, %ls : f64
    memref.store %l, %ll[%i] : memref<3xf64>
  }
  return
}

func.func @gmm_grad(%x: memref<3x2xf64>, %d_x: memref<3x2xf64>, %mu: memref<2x2xf64>, %d_mu: memref<2x2xf64>, %q: memref<2x2xf64>, %d_q: memref<2x2xf64>, %alpha: memref<2xf64>, %d_alpha: memref<2xf64>, %t: memref<2xf64>, %d_t: memref<2xf64>, %ll: memref<3xf64>, %d_ll: memref<3xf64>) {
  enzyme.autodiff @gmm(%x, %d_x, %mu, %d_mu, %q, %d_q, %alpha, %d_alpha, %t, %d_t, %ll, %d_ll) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3x2xf64>, memref<3x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<3xf64>, memref<3xf64>) -> ()
  return
}
