// mvt, preset small (N=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/mvt.py, not this file.
func.func @mvt(%x1: memref<4xf64>, %x2: memref<4xf64>, %y_1: memref<4xf64>, %y_2: memref<4xf64>, %A: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %x = memref.load %x1[%i] : memref<4xf64>
      %a = memref.load %A[%i, %j] : memref<4x4xf64>
      %y = memref.load %y_1[%j] : memref<4xf64>
      %m = arith.mulf %a, %y : f64
      %s = arith.addf %x, %m : f64
      memref.store %s, %x1[%i] : memref<4xf64>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %x = memref.load %x2[%i] : memref<4xf64>
      %a = memref.load %A[%j, %i] : memref<4x4xf64>
      %y = memref.load %y_2[%j] : memref<4xf64>
      %m = arith.mulf %a, %y : f64
      %s = arith.addf %x, %m : f64
      memref.store %s, %x2[%i] : memref<4xf64>
    }
  }
  return
}

func.func @mvt_grad(%x1: memref<4xf64>, %d_x1: memref<4xf64>, %x2: memref<4xf64>, %d_x2: memref<4xf64>, %y_1: memref<4xf64>, %d_y_1: memref<4xf64>, %y_2: memref<4xf64>, %d_y_2: memref<4xf64>, %A: memref<4x4xf64>, %d_A: memref<4x4xf64>) {
  enzyme.autodiff @mvt(%x1, %d_x1, %x2, %d_x2, %y_1, %d_y_1, %y_2, %d_y_2, %A, %d_A) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
