// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

// `for i = 1 to 8 step 2` runs 4 times (i = 1, 3, 5, 7). Enzyme-MLIR 0.0.16 alone
// gives its caches (8 - 1) / 2 = 3 entries (docs/enzyme-bugs.md); tapeflow-enzyme
// hands it the loop with step 1 over 4 trips, i = 1 + 2k, so each cache has 4
// entries, pushed and popped by the loop's own counter.
// CHECK-LABEL: func.func private @diffef
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[CACHE:.*]] = memref.alloc() : memref<4xf64>
// CHECK:         scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK:           %[[M:.*]] = arith.muli %[[K]], %[[C2]] : index
// CHECK:           memref.store %{{.*}}, %[[CACHE]][%[[K]]] : memref<4xf64>
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NOT:     step %[[C2]]
func.func @f(%x: memref<9xf64>, %y: memref<9xf64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c1 to %c8 step %c2 {
    %v = memref.load %x[%i] : memref<9xf64>
    %w = memref.load %y[%i] : memref<9xf64>
    %m = arith.mulf %v, %w : f64
    memref.store %m, %y[%i] : memref<9xf64>
  }
  return
}
func.func @f_grad(%x: memref<9xf64>, %dx: memref<9xf64>, %y: memref<9xf64>, %dy: memref<9xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<9xf64>, memref<9xf64>, memref<9xf64>, memref<9xf64>) -> ()
  return
}
