// burgers, preset paper (TM=48, T=48, N=66).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/burgers.py, not this file.
func.func @burgers(%u: memref<49x66xf64>, %T: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c65 = arith.constant 65 : index
  %a = arith.constant 0.2 : f64
  %b = arith.constant 0.2 : f64
  %two = arith.constant 2.0 : f64
  scf.for %t = %c0 to %T step %c1 {
    %t1 = arith.addi %t, %c1 : index
    %first = memref.load %u[%t, %c0] : memref<49x66xf64>
    memref.store %first, %u[%t1, %c0] : memref<49x66xf64>
    %last = memref.load %u[%t, %c65] : memref<49x66xf64>
    memref.store %last, %u[%t1, %c65] : memref<49x66xf64>
    scf.for %i = %c1 to %c65 step %c1 {
      %il = arith.subi %i, %c1 : index
      %ir = arith.addi %i, %c1 : index
      %c = memref.load %u[%t, %i] : memref<49x66xf64>
      %l = memref.load %u[%t, %il] : memref<49x66xf64>
      %r = memref.load %u[%t, %ir] : memref<49x66xf64>
      %dl = arith.subf %c, %l : f64
      %adv = arith.mulf %c, %dl : f64
      %aadv = arith.mulf %a, %adv : f64
      %c2 = arith.mulf %two, %c : f64
      %rl = arith.addf %r, %l : f64
      %lap = arith.subf %rl, %c2 : f64
      %blap = arith.mulf %b, %lap : f64
      %moved = arith.subf %c, %aadv : f64
      %new = arith.addf %moved, %blap : f64
      memref.store %new, %u[%t1, %i] : memref<49x66xf64>
    }
  }
  return
}

func.func @burgers_grad(%u: memref<49x66xf64>, %d_u: memref<49x66xf64>, %T: index) {
  enzyme.autodiff @burgers(%u, %d_u, %T) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<49x66xf64>, memref<49x66xf64>, index) -> ()
  return
}
