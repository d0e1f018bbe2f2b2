// The Enzyme stage written as upstream MLIR: enzyme.store/load of a cache of
// run-time extent become memref.store/load at the same indices, the zero-fill of
// a temporary's shadow a linalg.fill of 0.0, and no tapeflow.*, #enzyme or
// preserve_cache annotation is left. The generic form is what mlir-opt reads
// (test/lowering/test_to_upstream.py has mlir-opt-19 verify it).
// RUN: tapeflow-opt -p tapeflow-enzyme,tapeflow-to-upstream %s | filecheck %s
// RUN: tapeflow-opt -p tapeflow-enzyme,tapeflow-to-upstream --print-op-generic %s | filecheck %s --check-prefix=GENERIC

func.func @f(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %t = memref.alloca() : memref<1xf64>
  memref.store %one, %t[%c0] : memref<1xf64>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<?xf64>
    %pos = arith.cmpf ogt, %xi, %zero : f64
    %v = scf.if %pos -> (f64) {
      %e = math.sin %xi : f64
      scf.yield %e : f64
    } else {
      scf.yield %xi : f64
    }
    %old = memref.load %t[%c0] : memref<1xf64>
    %w = arith.mulf %old, %v : f64
    memref.store %w, %t[%c0] : memref<1xf64>
    %next = arith.mulf %acc, %w : f64
    scf.yield %next : f64
  }
  return %s : f64
}
func.func @f_grad(%x: memref<?xf64>, %dx: memref<?xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<?xf64>, memref<?xf64>, index, f64) -> f64
  return %r : f64
}

// CHECK-NOT:   enzyme.
// CHECK-NOT:   tapeflow.
// CHECK-LABEL: func.func private @diffef(%{{.*}}: memref<?xf64>, %{{.*}}: memref<?xf64>, %{{.*}}: index, %{{.*}}: f64) -> f64 {
// CHECK:         %[[ZERO:[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f64) outs(%{{.*}} : memref<1xf64>)
// CHECK:         %[[Z:.*]] = arith.maxsi %[[N:.*]], %{{.*}} : index
// CHECK-NEXT:    %[[CACHE:.*]] = memref.alloc(%[[Z]]) : memref<?xf64>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// CHECK:           memref.store %{{.*}}, %[[CACHE]][%[[I]]] : memref<?xf64>
// CHECK:         scf.for
// CHECK:           memref.load %[[CACHE]][%{{.*}}] : memref<?xf64>
// CHECK-NOT:   enzyme.
// CHECK-NOT:   preserve_cache
// CHECK-NOT:   tapeflow.
// CHECK:       }

// GENERIC-NOT: enzyme
// GENERIC-NOT: tapeflow
// GENERIC:     "linalg.fill"
// GENERIC-NOT: enzyme
// GENERIC-NOT: tapeflow

// The pass's output passes through it again unchanged.
// RUN: tapeflow-opt -p tapeflow-enzyme,tapeflow-to-upstream %s > %t.mlir
// RUN: tapeflow-opt -p tapeflow-to-upstream %t.mlir | diff - %t.mlir
