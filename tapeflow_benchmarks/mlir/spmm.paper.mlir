// spmm, preset paper (R=128, C=128, D=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/spmm.py, not this file.
func.func @spmm(%rowptr: memref<129xindex>, %col: memref<772xindex>, %val: memref<772xf64>, %H: memref<128x16xf64>, %Y: memref<128x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<129xindex>
    %hi = memref.load %rowptr[%i1] : memref<129xindex>
    scf.for %k = %lo to %hi step %c1 {
      %a = memref.load %val[%k] : memref<772xf64>
      %h = memref.load %col[%k] : memref<772xindex>
      scf.for %f = %c0 to %c16 step %c1 {
        %hv = memref.load %H[%h, %f] : memref<128x16xf64>
        %p = arith.mulf %a, %hv : f64
        %y = memref.load %Y[%i, %f] : memref<128x16xf64>
        %s = arith.addf %y, %p : f64
        memref.store %s, %Y[%i, %f] : memref<128x16xf64>
      }
    }
    scf.for %f = %c0 to %c16 step %c1 {
      %y = memref.load %Y[%i, %f] : memref<128x16xf64>
      %t = math.tanh %y : f64
      memref.store %t, %Y[%i, %f] : memref<128x16xf64>
    }
  }
  return
}

func.func @spmm_grad(%rowptr: memref<129xindex>, %col: memref<772xindex>, %val: memref<772xf64>, %d_val: memref<772xf64>, %H: memref<128x16xf64>, %d_H: memref<128x16xf64>, %Y: memref<128x16xf64>, %d_Y: memref<128x16xf64>) {
  enzyme.autodiff @spmm(%rowptr, %col, %val, %d_val, %H, %d_H, %Y, %d_Y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<129xindex>, memref<772xindex>, memref<772xf64>, memref<772xf64>, memref<128x16xf64>, memref<128x16xf64>, memref<128x16xf64>, memref<128x16xf64>) -> ()
  return
}
