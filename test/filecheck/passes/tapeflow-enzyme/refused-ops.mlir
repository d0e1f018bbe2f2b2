// Ops Enzyme-MLIR 0.0.16 has no adjoint for, rewritten before it with the same
// values: rsqrt as 1 / sqrt; erf given its derivative 2 / sqrt(pi) exp(-u^2) (the
// gradient caches that factor and the forward sweep computes erf itself); the
// dealloc of the function's own buffer dropped; the call of a function that
// touches memory inlined, the callee kept.
// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

func.func @scale(%t: memref<4xf64>, %i: index, %s: f64) {
  %v = memref.load %t[%i] : memref<4xf64>
  %w = arith.mulf %v, %s : f64
  memref.store %w, %t[%i] : memref<4xf64>
  return
}
func.func @f(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %r = math.rsqrt %v : f64
    %e = math.erf %v : f64
    %p = arith.mulf %r, %e : f64
    memref.store %p, %t[%i] : memref<4xf64>
    func.call @scale(%t, %i, %v) : (memref<4xf64>, index, f64) -> ()
    %q = memref.load %t[%i] : memref<4xf64>
    memref.store %q, %x[%i] : memref<4xf64>
  }
  memref.dealloc %t : memref<4xf64>
  return
}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>) {
  enzyme.autodiff @f(%x, %dx) <{activity = [#enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>) -> ()
  return
}

// CHECK-LABEL: func.func @scale(
// CHECK-LABEL: func.func @f(
// CHECK-NOT:     math.rsqrt
// CHECK-NOT:     func.call
// CHECK-NOT:     memref.dealloc
// CHECK:         %[[V:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf64>
// CHECK:         %[[S:.*]] = math.sqrt %[[V]] : f64
// CHECK:         arith.divf %{{.*}}, %[[S]] : f64
// CHECK:         %[[E:.*]] = math.erf %[[V]] : f64
// CHECK-NOT:     enzyme.ignore_derivatives
// CHECK:       func.return
// CHECK-LABEL: func.func private @diffef(
// CHECK-NOT:     func.call
// CHECK-NOT:     enzyme.ignore_derivatives
// CHECK-NOT:     arith.subf %[[A:.*]], %[[A]] : f64
// CHECK-DAG:     math.erf %{{.*}} : f64
// CHECK-DAG:     %[[SQ:.*]] = arith.mulf %[[U:.*]], %[[U]] : f64
// CHECK-DAG:     %[[N:.*]] = arith.negf %[[SQ]] : f64
// CHECK-DAG:     math.exp %[[N]] : f64
// CHECK:       func.return
