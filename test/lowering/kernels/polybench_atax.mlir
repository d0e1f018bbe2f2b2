// Source: PolyBench/C 4.2, linear-algebra/kernels/atax (kernel_atax: y = A^T (A x)),
// with M = 3 rows and N = 4 columns, written with scf loops and a stack
// temporary the way Polygeist emits it (test/tapeflow_tools/frontend_kernels/
// atax_affine.mlir has it with affine loops). y[j] = 0 and tmp[i] = 0 are stores of a
// constant, into a duplicated argument and into a local buffer whose shadow
// Enzyme creates (docs/enzyme-bugs.md).
func.func @f(%A: memref<3x4xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %tmp = memref.alloca() : memref<3xf64>
  scf.for %j = %c0 to %c4 step %c1 {
    memref.store %zero, %y[%j] : memref<4xf64>
  }
  scf.for %i = %c0 to %c3 step %c1 {
    memref.store %zero, %tmp[%i] : memref<3xf64>
    scf.for %j = %c0 to %c4 step %c1 {
      %t = memref.load %tmp[%i] : memref<3xf64>
      %a = memref.load %A[%i, %j] : memref<3x4xf64>
      %xj = memref.load %x[%j] : memref<4xf64>
      %p = arith.mulf %a, %xj : f64
      %s = arith.addf %t, %p : f64
      memref.store %s, %tmp[%i] : memref<3xf64>
    }
    scf.for %j = %c0 to %c4 step %c1 {
      %yj = memref.load %y[%j] : memref<4xf64>
      %a = memref.load %A[%i, %j] : memref<3x4xf64>
      %t = memref.load %tmp[%i] : memref<3xf64>
      %p = arith.mulf %a, %t : f64
      %s = arith.addf %yj, %p : f64
      memref.store %s, %y[%j] : memref<4xf64>
    }
  }
  return
}
func.func @f_grad(%A: memref<3x4xf64>, %dA: memref<3x4xf64>, %x: memref<4xf64>, %dx: memref<4xf64>,
                  %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @f(%A, %dA, %x, %dx, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<3x4xf64>, memref<3x4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
