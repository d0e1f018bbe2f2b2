// sinegordon, preset small (N=6, T=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/sinegordon.py, not this file.
func.func @sinegordon(%up: memref<6xf64>, %uc: memref<6xf64>, %un: memref<6xf64>, %T: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c = arith.constant 0.25 : f64
  %k = arith.constant 0.010000000000000002 : f64
  %two = arith.constant 2.0 : f64
  scf.for %t = %c0 to %T step %c1 {
    scf.for %i = %c1 to %c5 step %c1 {
      %il = arith.subi %i, %c1 : index
      %ir = arith.addi %i, %c1 : index
      %u = memref.load %uc[%i] : memref<6xf64>
      %l = memref.load %uc[%il] : memref<6xf64>
      %r = memref.load %uc[%ir] : memref<6xf64>
      %p = memref.load %up[%i] : memref<6xf64>
      %u2 = arith.mulf %two, %u : f64
      %rl = arith.addf %r, %l : f64
      %lap = arith.subf %rl, %u2 : f64
      %clap = arith.mulf %c, %lap : f64
      %sn = math.sin %u : f64
      %ksn = arith.mulf %k, %sn : f64
      %lead = arith.subf %u2, %p : f64
      %wave = arith.addf %lead, %clap : f64
      %new = arith.subf %wave, %ksn : f64
      memref.store %new, %un[%i] : memref<6xf64>
    }
    scf.for %i = %c1 to %c5 step %c1 {
      %u = memref.load %uc[%i] : memref<6xf64>
      memref.store %u, %up[%i] : memref<6xf64>
      %v = memref.load %un[%i] : memref<6xf64>
      memref.store %v, %uc[%i] : memref<6xf64>
    }
  }
  return
}

func.func @sinegordon_grad(%up: memref<6xf64>, %d_up: memref<6xf64>, %uc: memref<6xf64>, %d_uc: memref<6xf64>, %un: memref<6xf64>, %d_un: memref<6xf64>, %T: index) {
  enzyme.autodiff @sinegordon(%up, %d_up, %uc, %d_uc, %un, %d_un, %T) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>, index) -> ()
  return
}
