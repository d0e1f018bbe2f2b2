// bandmv, preset small (N=6, KL=1, KU=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/bandmv.py, not this file.
func.func @bandmv(%B: memref<?x?xf64>, %x: memref<?xf64>, %g: memref<?xf64>, %y: memref<?xf64>, %N: index, %KL: index, %KU: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %N step %c1 {
    %im = arith.subi %i, %KL : index
    %lo = arith.maxsi %im, %c0 : index
    %iu = arith.addi %i, %KU : index
    %ip = arith.addi %iu, %c1 : index
    %hi = arith.minsi %ip, %N : index
    %off = arith.subi %KL, %i : index
    %s = scf.for %j = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
      %jb = arith.addi %j, %off : index
      %b = memref.load %B[%i, %jb] : memref<?x?xf64>
      %xj = memref.load %x[%j] : memref<?xf64>
      %bx = arith.mulf %b, %xj : f64
      %bxx = arith.mulf %bx, %xj : f64
      %next = arith.addf %acc, %bxx : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    %gi = memref.load %g[%i] : memref<?xf64>
    %yi = arith.mulf %t, %gi : f64
    memref.store %yi, %y[%i] : memref<?xf64>
  }
  return
}

func.func @bandmv_grad(%B: memref<?x?xf64>, %d_B: memref<?x?xf64>, %x: memref<?xf64>, %d_x: memref<?xf64>, %g: memref<?xf64>, %d_g: memref<?xf64>, %y: memref<?xf64>, %d_y: memref<?xf64>, %N: index, %KL: index, %KU: index) {
  enzyme.autodiff @bandmv(%B, %d_B, %x, %d_x, %g, %d_g, %y, %d_y, %N, %KL, %KU) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, index, index, index) -> ()
  return
}
