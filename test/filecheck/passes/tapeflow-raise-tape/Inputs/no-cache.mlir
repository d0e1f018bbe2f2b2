// y[i] = 3 * x[i]: the adjoint needs no primal value.
func.func @scale(%x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %three = arith.constant 3.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %s = arith.mulf %v, %three : f64
    memref.store %s, %y[%i] : memref<4xf64>
  }
  func.return
}

func.func @scale_grad(%x: memref<4xf64>, %dx: memref<4xf64>, %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @scale(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  func.return
}
