// spmvt, preset paper (R=512, C=512).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/spmvt.py, not this file.
func.func @spmvt(%rowptr: memref<513xindex>, %col: memref<5113xindex>, %val: memref<5113xf64>, %x: memref<512xf64>, %y: memref<512xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c512 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<513xindex>
    %hi = memref.load %rowptr[%i1] : memref<513xindex>
    %xi = memref.load %x[%i] : memref<512xf64>
    %t = math.tanh %xi : f64
    scf.for %k = %lo to %hi step %c1 {
      %j = memref.load %col[%k] : memref<5113xindex>
      %v = memref.load %val[%k] : memref<5113xf64>
      %m = arith.mulf %v, %t : f64
      %g = math.tanh %m : f64
      %yj = memref.load %y[%j] : memref<512xf64>
      %s = arith.addf %yj, %g : f64
      memref.store %s, %y[%j] : memref<512xf64>
    }
  }
  return
}

func.func @spmvt_grad(%rowptr: memref<513xindex>, %col: memref<5113xindex>, %val: memref<5113xf64>, %d_val: memref<5113xf64>, %x: memref<512xf64>, %d_x: memref<512xf64>, %y: memref<512xf64>, %d_y: memref<512xf64>) {
  enzyme.autodiff @spmvt(%rowptr, %col, %val, %d_val, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<513xindex>, memref<5113xindex>, memref<5113xf64>, memref<5113xf64>, memref<512xf64>, memref<512xf64>, memref<512xf64>, memref<512xf64>) -> ()
  return
}
