// A store of a constant into a duplicated buffer: its adjoint zeroes the shadow
// element at the store's place in the reverse sweep, inside the reverse loop and
// under the reverse branch (Enzyme-MLIR 0.0.16 alone emits nothing there,
// docs/enzyme-bugs.md). The primal keeps its body, and no scratch buffer of the
// route is left in the gradient.
// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

func.func @f(%x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %pos = arith.cmpf ogt, %v, %zero : f64
    scf.if %pos {
      memref.store %zero, %y[%i] : memref<4xf64>
    }
    %w = memref.load %y[%i] : memref<4xf64>
    %s = arith.addf %w, %v : f64
    memref.store %s, %y[%i] : memref<4xf64>
  }
  return
}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>, %y: memref<4xf64>, %dy: memref<4xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     memref.alloca
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf64>
// CHECK-NEXT:    }
// CHECK-LABEL: func.func private @diffef(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<4xf64>, %[[DX:[a-z0-9]+]]: memref<4xf64>, %[[Y:[a-z0-9]+]]: memref<4xf64>, %[[DY:[a-z0-9]+]]: memref<4xf64>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[ZERO]], %[[DY]][%{{.*}}] : memref<4xf64>
// CHECK-NEXT:      }
// CHECK-NOT:     memref.alloca
// CHECK:         func.return
