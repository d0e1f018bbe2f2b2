// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// Caches nested two levels below the top (PolyBench lu's `i, j < i, k < j`):
// Enzyme keeps, per i, a buffer of per-j buffers (memref<4xmemref<?xmemref<?xf64>>>).
// The chain becomes one value tape indexed [i, j, k]; its `?` extents are the
// largest per-i extent (i) and the largest per-j extent (j), computed by loops over
// the FWD nest's bounds before it runs. No buffer of handles is left. Its ragged
// extents (4, i, j) are recorded for tapeflow-pack-tapes, and its values counted
// packed: sum over i < 4 of i*(i-1)/2 = 0 + 0 + 1 + 3 = 4 per tape.
// CHECK-LABEL: func.func private @diffef
// CHECK-NOT:    memref<?xmemref
// CHECK:        %[[I:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// CHECK-NEXT:     arith.maxsi
// CHECK:        %[[J:.*]] = scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// CHECK-NEXT:     scf.for %{{.*}} = %{{.*}} to %[[I0]] step
// CHECK-NEXT:       arith.maxsi
// CHECK:        %[[T:.*]] = tape.alloc(%[[I]], %[[J]]) name "{{.*}}" {tapeflow.ragged = affine_map<(d0, d1, d2)[s0, s1] -> (4, d0, d1)>} : !tape.tape<4x?x?xf64>
// CHECK:        scf.for %[[FI:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:     scf.for %[[FJ:.*]] = %{{.*}} to %[[FI]] step
// CHECK-NEXT:       scf.for %[[FK:.*]] = %{{.*}} to %[[FJ]] step
// CHECK:              tape.store %{{.*}}, %[[T]][%[[FI]], %[[FJ]], %[[FK]]] id {{[0-9]+}} : f64, !tape.tape<4x?x?xf64>
// CHECK:        tape.load %[[T]][%{{.*}}, %{{.*}}, %{{.*}}] from {{[0-9]+}} : !tape.tape<4x?x?xf64> -> f64
// CHECK-NOT:    memref.dealloc
// CHECK:        tape.free %[[T]] : !tape.tape<4x?x?xf64>
// STATS: @diffef: 2 tapes, 8 values, 64 bytes
// STATS:   tape {{.*}} !tape.tape<4x?x?xf64> {{ *}}4 values {{ *}}32 bytes  1 store(s), 1 load(s)
// STATS-NEXT: triangular, ragged extents (d0, d1, d2)[s0, s1] -> (4, d0, d1)
// STATS-NOT: kept
func.func @f(%A: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      scf.for %k = %c0 to %j step %c1 {
        %a = memref.load %A[%i, %k] : memref<4x4xf64>
        %c = memref.load %A[%i, %j] : memref<4x4xf64>
        %p = arith.mulf %a, %c : f64
        memref.store %p, %A[%i, %j] : memref<4x4xf64>
      }
    }
  }
  return
}
func.func @f_grad(%A: memref<4x4xf64>, %dA: memref<4x4xf64>) {
  enzyme.autodiff @f(%A, %dA) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}
