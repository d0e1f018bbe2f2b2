// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s

// What Enzyme-MLIR 0.0.16 emits for loops whose trip count is known only at run
// time, read back: caches of dynamic extent accessed with enzyme.store/load.

// (a) A loop bounded by an argument: one cache per value, of extent %n, which
// tapeflow-enzyme clamps at zero for the allocation alone (the loop may run no
// iteration; the accesses keep Enzyme's %n).
// CHECK-LABEL: func.func private @diffescale_prod
// CHECK:        %[[Z:.*]] = arith.maxsi %[[N:.*]], %{{.*}} : index
// CHECK:        %[[A:.*]] = memref.alloc(%[[Z]]) : memref<?xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// CHECK:          enzyme.store %{{.*}}, %[[A]][%[[I]]] ([%[[N]]]) : memref<?xf64>
// CHECK:        scf.for
// CHECK:          enzyme.load %[[A]][%{{.*}}] ([%[[N]]]) : memref<?xf64>
// CHECK:        memref.dealloc %[[A]] : memref<?xf64>
func.func @scale_prod(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<?xf64>
    %e = math.sin %xi : f64
    %next = arith.mulf %acc, %e : f64
    scf.yield %next : f64
  }
  return %s : f64
}
func.func @scale_prod_grad(%x: memref<?xf64>, %dx: memref<?xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @scale_prod(%x, %dx, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<?xf64>, memref<?xf64>, index, f64) -> f64
  return %r : f64
}

// (b, c) A triangular nest (PolyBench syrk's shape, j from i+1 to n) on buffers of
// dynamic shape: a cache of per-outer-iteration caches (one handle per i, each a
// buffer of n-i-1 rows), written and read through enzyme.store/load, and each
// row reached through a subview. The buffer of handles is sized max(n, 0); each
// row buffer keeps Enzyme's n-i-1, at least 0 for every i < n the loop runs.
// CHECK-LABEL: func.func private @diffetri
// CHECK:        %[[H:.*]] = arith.maxsi %[[M:.*]], %{{.*}} : index
// CHECK:        memref.alloc(%[[H]]) : memref<?xmemref<?x4xf64>>
// CHECK:        scf.for %[[O:.*]] = %{{.*}} to %[[M]]
// CHECK-NOT:      arith.maxsi
// CHECK:          %[[COUNT:.*]] = arith.subi %[[M]], %{{.*}} : index
// CHECK-NEXT:     %[[ROWS:.*]] = memref.alloc(%[[COUNT]]) : memref<?x4xf64>
// CHECK:          enzyme.store %[[ROWS]], %{{.*}}[%[[O]]] ([%[[M]]]) : memref<?xmemref<?x4xf64>>
// CHECK:          memref.subview %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : memref<?x4xf64> to memref<4xf64, strided<[1], offset: ?>>
// CHECK:        scf.for
// CHECK:          %[[BACK:.*]] = enzyme.load %{{.*}}[%{{.*}}] ([%[[M]]]) : memref<?xmemref<?x4xf64>>
// CHECK:          memref.dealloc %[[BACK]] : memref<?x4xf64>
// CHECK:        memref.dealloc %{{.*}} : memref<?xmemref<?x4xf64>>
func.func @tri(%A: memref<?x4xf64>, %C: memref<?x?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %n step %c1 {
    %ip1 = arith.addi %i, %c1 : index
    scf.for %j = %ip1 to %n step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %a = memref.load %A[%i, %k] : memref<?x4xf64>
        %b = memref.load %A[%j, %k] : memref<?x4xf64>
        %c = memref.load %C[%i, %j] : memref<?x?xf64>
        %p = arith.mulf %a, %b : f64
        %q = arith.mulf %p, %c : f64
        %s = arith.addf %c, %q : f64
        memref.store %s, %C[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}
func.func @tri_grad(%A: memref<?x4xf64>, %dA: memref<?x4xf64>, %C: memref<?x?xf64>, %dC: memref<?x?xf64>, %n: index) {
  enzyme.autodiff @tri(%A, %dA, %C, %dC, %n) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<?x4xf64>, memref<?x4xf64>, memref<?x?xf64>, memref<?x?xf64>, index) -> ()
  return
}

// (d) A band clipped at the matrix edge (Numerical Recipes' bandec: row i's
// columns j = i+4 to 12, reversed past i = 8): each row's buffer of values is
// sized max(8 - i, 0), one clamp for the two buffers of the row; the accesses
// keep Enzyme's 8 - i.
// CHECK-LABEL: func.func private @diffeband
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}}
// CHECK:          %[[E:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK-NEXT:     %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[C:.*]] = arith.maxsi %[[E]], %[[Z]] : index
// CHECK-NEXT:     memref.alloc(%[[C]]) : memref<?xf64>
// CHECK:          memref.alloc(%[[C]]) : memref<?xf64>
// CHECK-NOT:      arith.maxsi
// CHECK:          enzyme.store %{{.*}}, %{{.*}}[%{{.*}}] ([%[[E]]]) : memref<?xf64>
func.func @band(%x: memref<16xf64>, %y: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %lb = arith.addi %i, %c4 : index
    %xi = memref.load %x[%i] : memref<16xf64>
    %r = scf.for %j = %lb to %c12 step %c1 iter_args(%acc = %xi) -> (f64) {
      %xj = memref.load %x[%j] : memref<16xf64>
      %s = math.sin %xj : f64
      %p = arith.mulf %s, %acc : f64
      scf.yield %p : f64
    }
    memref.store %r, %y[%i] : memref<16xf64>
  }
  return
}
func.func @band_grad(%x: memref<16xf64>, %dx: memref<16xf64>, %y: memref<16xf64>, %dy: memref<16xf64>) {
  enzyme.autodiff @band(%x, %dx, %y, %dy) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<16xf64>, memref<16xf64>, memref<16xf64>, memref<16xf64>) -> ()
  return
}
