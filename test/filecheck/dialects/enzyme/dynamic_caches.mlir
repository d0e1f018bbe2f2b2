// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s > %t.custom && tapeflow-opt %s --print-op-generic | tapeflow-opt > %t.generic && diff %t.custom %t.generic

// `enzyme.store` / `enzyme.load` exactly as Enzyme-MLIR 0.0.16 prints them for
// caches of run-time extent (loop bounds that are arguments, triangular nests):
// the indices, then the logical extent of each indexed dimension, a constant
// where it is static.
// CHECK-LABEL: func.func @argument_bounded
// CHECK:      %[[A:.*]] = memref.alloc(%[[N:.*]]) : memref<?xf64>
// CHECK:      enzyme.store %{{.*}}, %[[A]][%{{.*}}] ([%[[N]]]) : memref<?xf64>
// CHECK:      %{{.*}} = enzyme.load %[[A]][%{{.*}}] ([%[[N]]]) : memref<?xf64>
func.func @argument_bounded(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %alloc = memref.alloc(%n) : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    enzyme.store %v, %alloc[%i] ([%n]) : memref<?xf64>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = enzyme.load %alloc[%i] ([%n]) : memref<?xf64>
    %a = arith.addf %acc, %v : f64
    scf.yield %a : f64
  }
  memref.dealloc %alloc : memref<?xf64>
  func.return %s : f64
}

// Mixed static and dynamic extents, a strided view of a cache row (what Enzyme
// writes into for a dynamic inner loop), attributes, and a cache of caches
// (triangular nests: one buffer per outer iteration, of that iteration's extent).
// CHECK-LABEL: func.func @mixed
// CHECK:      enzyme.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] ([4, %{{.*}}]) : memref<?x?xf64>
// CHECK:      enzyme.load %{{.*}}[%{{.*}}, %{{.*}}] ([4, 5]) {note} : memref<?x?xf64>
// CHECK:      enzyme.store %{{.*}}, %{{.*}}[%{{.*}}] ([%{{.*}}]) : memref<?xf64, strided<[1], offset: ?>>
// CHECK:      enzyme.store %{{.*}}, %{{.*}}[%{{.*}}] ([%{{.*}}]) : memref<?xmemref<?x4xf64>>
// CHECK:      %{{.*}} = enzyme.load %{{.*}}[%{{.*}}] ([%{{.*}}]) : memref<?xmemref<?x4xf64>>
func.func @mixed(%m: memref<?x?xf64>, %row: memref<?xf64, strided<[1], offset: ?>>, %caches: memref<?xmemref<?x4xf64>>, %c: memref<?x4xf64>, %i: index, %n: index, %v: f64) -> f64 {
  enzyme.store %v, %m[%i, %i] ([4, %n]) : memref<?x?xf64>
  %r = enzyme.load %m[%i, %i] ([4, 5]) {note} : memref<?x?xf64>
  enzyme.store %v, %row[%i] ([%n]) : memref<?xf64, strided<[1], offset: ?>>
  enzyme.store %c, %caches[%i] ([%n]) : memref<?xmemref<?x4xf64>>
  %h = enzyme.load %caches[%i] ([%n]) : memref<?xmemref<?x4xf64>>
  func.return %r : f64
}
