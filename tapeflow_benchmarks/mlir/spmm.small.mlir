// spmm, preset small (R=4, C=5, D=2).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/spmm.py, not this file.
func.func @spmm(%rowptr: memref<5xindex>, %col: memref<16xindex>, %val: memref<16xf64>, %H: memref<5x2xf64>, %Y: memref<4x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<5xindex>
    %hi = memref.load %rowptr[%i1] : memref<5xindex>
    scf.for %k = %lo to %hi step %c1 {
      %a = memref.load %val[%k] : memref<16xf64>
      %h = memref.load %col[%k] : memref<16xindex>
      scf.for %f = %c0 to %c2 step %c1 {
        %hv = memref.load %H[%h, %f] : memref<5x2xf64>
        %p = arith.mulf %a, %hv : f64
        %y = memref.load %Y[%i, %f] : memref<4x2xf64>
        %s = arith.addf %y, %p : f64
        memref.store %s, %Y[%i, %f] : memref<4x2xf64>
      }
    }
    scf.for %f = %c0 to %c2 step %c1 {
      %y = memref.load %Y[%i, %f] : memref<4x2xf64>
      %t = math.tanh %y : f64
      memref.store %t, %Y[%i, %f] : memref<4x2xf64>
    }
  }
  return
}

func.func @spmm_grad(%rowptr: memref<5xindex>, %col: memref<16xindex>, %val: memref<16xf64>, %d_val: memref<16xf64>, %H: memref<5x2xf64>, %d_H: memref<5x2xf64>, %Y: memref<4x2xf64>, %d_Y: memref<4x2xf64>) {
  enzyme.autodiff @spmm(%rowptr, %col, %val, %d_val, %H, %d_H, %Y, %d_Y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<16xindex>, memref<16xf64>, memref<16xf64>, memref<5x2xf64>, memref<5x2xf64>, memref<4x2xf64>, memref<4x2xf64>) -> ()
  return
}
