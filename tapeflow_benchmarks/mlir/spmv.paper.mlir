// spmv, preset paper (R=512, C=512).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/spmv.py, not this file.
func.func @spmv(%rowptr: memref<513xindex>, %col: memref<3572xindex>, %val: memref<3572xf64>, %x: memref<512xf64>, %y: memref<512xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c512 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<513xindex>
    %hi = memref.load %rowptr[%i1] : memref<513xindex>
    %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
      %j = memref.load %col[%k] : memref<3572xindex>
      %v = memref.load %val[%k] : memref<3572xf64>
      %xj = memref.load %x[%j] : memref<512xf64>
      %p = arith.mulf %v, %xj : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<512xf64>
  }
  return
}

func.func @spmv_grad(%rowptr: memref<513xindex>, %col: memref<3572xindex>, %val: memref<3572xf64>, %d_val: memref<3572xf64>, %x: memref<512xf64>, %d_x: memref<512xf64>, %y: memref<512xf64>, %d_y: memref<512xf64>) {
  enzyme.autodiff @spmv(%rowptr, %col, %val, %d_val, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<513xindex>, memref<3572xindex>, memref<3572xf64>, memref<3572xf64>, memref<512xf64>, memref<512xf64>, memref<512xf64>, memref<512xf64>) -> ()
  return
}
