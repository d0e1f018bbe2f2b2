// spmvt, preset small (R=5, C=5).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/spmvt.py, not this file.
func.func @spmvt(%rowptr: memref<6xindex>, %col: memref<20xindex>, %val: memref<20xf64>, %x: memref<5xf64>, %y: memref<5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c5 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<6xindex>
    %hi = memref.load %rowptr[%i1] : memref<6xindex>
    %xi = memref.load %x[%i] : memref<5xf64>
    %t = math.tanh %xi : f64
    scf.for %k = %lo to %hi step %c1 {
      %j = memref.load %col[%k] : memref<20xindex>
      %v = memref.load %val[%k] : memref<20xf64>
      %m = arith.mulf %v, %t : f64
      %g = math.tanh %m : f64
      %yj = memref.load %y[%j] : memref<5xf64>
      %s = arith.addf %yj, %g : f64
      memref.store %s, %y[%j] : memref<5xf64>
    }
  }
  return
}

func.func @spmvt_grad(%rowptr: memref<6xindex>, %col: memref<20xindex>, %val: memref<20xf64>, %d_val: memref<20xf64>, %x: memref<5xf64>, %d_x: memref<5xf64>, %y: memref<5xf64>, %d_y: memref<5xf64>) {
  enzyme.autodiff @spmvt(%rowptr, %col, %val, %d_val, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6xindex>, memref<20xindex>, memref<20xf64>, memref<20xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>) -> ()
  return
}
