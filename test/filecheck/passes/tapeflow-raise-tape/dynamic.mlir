// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// Enzyme's caches of run-time extent become tapes with `?` extents.

// (a) A loop bounded by an argument: the tapes take the cache buffers' size
// operands (the count clamped at zero by tapeflow-enzyme); enzyme.store/load become
// tape.store/load.
// CHECK-LABEL: func.func private @diffeprod
// CHECK-NOT:    enzyme.store
// CHECK:        %[[Z:.*]] = arith.maxsi %[[N:.*]], %{{.*}} : index
// CHECK:        %[[T:.*]] = tape.alloc(%[[Z]]) name "{{.*}}" : !tape.tape<?xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// CHECK:          tape.store %{{.*}}, %[[T]][%[[I]]] id {{[0-9]+}} : f64, !tape.tape<?xf64>
// CHECK:        scf.for
// CHECK:          tape.load %[[T]][%{{.*}}] from {{[0-9]+}} : !tape.tape<?xf64> -> f64
// CHECK-NOT:    enzyme.load
// CHECK:        tape.free %[[T]] : !tape.tape<?xf64>
// STATS: @diffeprod: 2 tapes, 0 values, 0 bytes (+ 2 tapes sized at run time)
// STATS:   tape {{.*}} !tape.tape<?xf64> {{ *}}? values {{ *}}? bytes  1 store(s), 1 load(s)
func.func @prod(%x: memref<?xf64>, %n: index) -> f64 {
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
func.func @prod_grad(%x: memref<?xf64>, %dx: memref<?xf64>, %n: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @prod(%x, %dx, %n, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<?xf64>, memref<?xf64>, index, f64) -> f64
  return %r : f64
}

// (b) A triangular nest: Enzyme's buffer of per-outer-iteration caches becomes
// one tape indexed [i, row, k], whose second extent is the largest per-iteration
// extent, computed by a loop over the FWD nest's bounds before it runs (once
// for the three caches, which have the same extents). Its ragged extents, for
// tapeflow-pack-tapes, are n, n - 1 - i and 4 (s0 is max(%n, 0), the first size
// operand: the buffer of handles' count, clamped at zero by tapeflow-enzyme, which
// is %n wherever the outer loop runs an iteration).
// CHECK-LABEL: func.func private @diffetri
// CHECK-NOT:    memref<?xmemref
// CHECK:        %[[H:.*]] = arith.maxsi %[[M:.*]], %{{.*}} : index
// CHECK:        %[[MAX:.*]] = scf.for %[[O:.*]] = %{{.*}} to %[[M]] step %{{.*}} iter_args(%[[BEST:.*]] = %{{.*}}) -> (index) {
// CHECK:          %[[E:.*]] = arith.subi %[[M]], %{{.*}} : index
// CHECK:          %[[NEXT:.*]] = arith.maxsi %[[BEST]], %[[E]] : index
// CHECK:          scf.yield %[[NEXT]] : index
// CHECK:        %[[T1:.*]] = tape.alloc(%[[H]], %[[MAX]]) name "{{.*}}" {tapeflow.ragged = affine_map<(d0, d1, d2)[s0, s1] -> (s0, (((d0 * -1) + -1) + s0), 4)>} : !tape.tape<?x?x4xf64>
// CHECK:        %[[T2:.*]] = tape.alloc(%[[H]], %[[MAX]]) name "{{.*}}" {tapeflow.ragged = affine_map<(d0, d1, d2)[s0, s1] -> (s0, (((d0 * -1) + -1) + s0), 4)>} : !tape.tape<?x?x4xf64>
// CHECK:        %[[T3:.*]] = tape.alloc(%[[H]], %[[MAX]]) name "{{.*}}" {tapeflow.ragged = affine_map<(d0, d1, d2)[s0, s1] -> (s0, (((d0 * -1) + -1) + s0), 4)>} : !tape.tape<?x?x4xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %[[M]]
// CHECK:          scf.for %[[J:.*]] =
// CHECK:            %[[ROW:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK:            scf.for %[[K:.*]] =
// CHECK:              tape.store %{{.*}}, %{{.*}}[%[[I]], %[[ROW]], %[[K]]] id {{[0-9]+}} : f64, !tape.tape<?x?x4xf64>
// CHECK:        scf.for
// CHECK:          tape.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] from {{[0-9]+}} : !tape.tape<?x?x4xf64> -> f64
// CHECK-NOT:    memref.dealloc
// CHECK:        tape.free
// STATS: @diffetri: 3 tapes, 0 values, 0 bytes (+ 3 tapes sized at run time)
// STATS:   tape {{.*}} !tape.tape<?x?x4xf64> {{ *}}? values {{ *}}? bytes  1 store(s), 1 load(s)
// STATS-NEXT: triangular, ragged extents (d0, d1, d2)[s0, s1] -> (s0, (((d0 * -1) + -1) + s0), 4)
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
