// newton, preset small (N=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/newton.py, not this file.
func.func @newton(%a: memref<3xf64>, %out: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %tol = arith.constant 1.0e-13 : f64
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c3 step %c1 {
    %av = memref.load %a[%i] : memref<3xf64>
    %x0 = arith.addf %av, %one : f64
    %r = scf.while (%x = %x0) : (f64) -> f64 {
      %q = arith.divf %av, %x : f64
      %s = arith.addf %x, %q : f64
      %nx = arith.mulf %s, %half : f64
      %d = arith.subf %nx, %x : f64
      %ad = math.absf %d : f64
      %c = arith.cmpf ogt, %ad, %tol : f64
      scf.condition(%c) %nx : f64
    } do {
    ^bb0(%x2: f64):
      scf.yield %x2 : f64
    }
    memref.store %r, %out[%i] : memref<3xf64>
  }
  return
}

func.func @newton_grad(%a: memref<3xf64>, %d_a: memref<3xf64>, %out: memref<3xf64>, %d_out: memref<3xf64>) {
  enzyme.autodiff @newton(%a, %d_a, %out, %d_out) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3xf64>, memref<3xf64>, memref<3xf64>, memref<3xf64>) -> ()
  return
}
