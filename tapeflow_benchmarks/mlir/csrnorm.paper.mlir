// csrnorm, preset paper (R=512, C=512).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/csrnorm.py, not this file.
func.func @csrnorm(%rowptr: memref<513xindex>, %col: memref<4597xindex>, %val: memref<4597xf64>, %x: memref<512xf64>, %y: memref<512xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %eps = arith.constant 1.000000e-06 : f64
  scf.for %i = %c0 to %c512 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<513xindex>
    %hi = memref.load %rowptr[%i1] : memref<513xindex>
    %q = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %eps) -> (f64) {
      %j = memref.load %col[%k] : memref<4597xindex>
      %v = memref.load %val[%k] : memref<4597xf64>
      %xj = memref.load %x[%j] : memref<512xf64>
      %m = arith.mulf %v, %xj : f64
      %m2 = arith.mulf %m, %m : f64
      %next = arith.addf %acc, %m2 : f64
      scf.yield %next : f64
    }
    %nrm = math.sqrt %q : f64
    %inv = arith.divf %one, %nrm : f64
    %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
      %j = memref.load %col[%k] : memref<4597xindex>
      %v = memref.load %val[%k] : memref<4597xf64>
      %xj = memref.load %x[%j] : memref<512xf64>
      %m = arith.mulf %v, %xj : f64
      %mn = arith.mulf %m, %inv : f64
      %t = math.tanh %mn : f64
      %next = arith.addf %acc, %t : f64
      scf.yield %next : f64
    }
    %t = math.tanh %s : f64
    memref.store %t, %y[%i] : memref<512xf64>
  }
  return
}

func.func @csrnorm_grad(%rowptr: memref<513xindex>, %col: memref<4597xindex>, %val: memref<4597xf64>, %d_val: memref<4597xf64>, %x: memref<512xf64>, %d_x: memref<512xf64>, %y: memref<512xf64>, %d_y: memref<512xf64>) {
  enzyme.autodiff @csrnorm(%rowptr, %col, %val, %d_val, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<513xindex>, memref<4597xindex>, memref<4597xf64>, memref<4597xf64>, memref<512xf64>, memref<512xf64>, memref<512xf64>, memref<512xf64>) -> ()
  return
}
