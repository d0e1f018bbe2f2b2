// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: filecheck %s --check-prefix=NOWARN < %t.stats

// A buffer read and written in one loop with min-cut caching off (after
// Enzyme-MLIR's enzyme/test/MLIR/ReverseMode/scf_for_mutable_memory.mlir):
// Enzyme caches per iteration the memref handle it wrote through
// (memref<4xmemref<4xf64>>) and the indices it used. Storing the shadow's
// handle in the forward sweep does not start the reverse sweep; the index and
// value caches become tapes, the handle cache stays a memref, with the reason.

// CHECK-LABEL: func.func private @diffek
// CHECK:        %[[H:.*]] = memref.alloc() : memref<4xmemref<4xf64>>
// CHECK:        scf.for
// CHECK-DAG:      tape.store %{{.*}}, %{{.*}}[%{{.*}}] id {{[0-9]+}} : index, !tape.tape<4xindex>
// CHECK-DAG:      tape.store %{{.*}}, %{{.*}}[%{{.*}}] id {{[0-9]+}} : f64, !tape.tape<4xf64>
// CHECK-DAG:      memref.store %{{.*}}, %[[H]][%{{.*}}] : memref<4xmemref<4xf64>>
// CHECK:        scf.for
// CHECK:          %[[S:.*]] = memref.load %[[H]][%{{.*}}] : memref<4xmemref<4xf64>>
// CHECK:          memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<4xf64>
// CHECK:        memref.dealloc %[[H]]

// NOWARN-NOT: warning
// STATS: tapeflow-raise-tape: @diffek: 3 tapes
// STATS: kept as memref: %alloc (memref<4xmemref<4xf64>>): holds buffers that are not allocated in the forward sweep

func.func @k(%buf: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f64) {
    %v = memref.load %buf[%i] : memref<4xf64>
    %sq = arith.mulf %v, %v : f64
    %n = arith.addf %acc, %sq : f64
    memref.store %n, %buf[%c0] : memref<4xf64>
    scf.yield %n : f64
  } {enzyme.disable_mincut = true}
  return %sum : f64
}
func.func @k_grad(%buf: memref<4xf64>, %dbuf: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%buf, %dbuf, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
