// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-mark-tape-buffers{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// The Enzyme baseline with Enzyme's tensor caches (`enzyme.cache_use_tensor`, as
// in Enzyme-MLIR's enzyme/test/MLIR/ReverseMode/scf_for.mlir): each cache becomes
// the memref buffer Enzyme's default mode writes, marked as the tape, so that
// the baseline's tape goes through the cache like any other.

// CHECK-LABEL: func.func private @diffek
// CHECK-NOT:    tensor.
// CHECK:        %[[B:.*]] = memref.alloc() {tapeflow.tape} : memref<5xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK:          memref.store %{{.*}}, %{{.*}}[%[[I]]] : memref<5xf64>
// CHECK:        scf.for
// CHECK:          memref.load %{{.*}}[%{{.*}}] : memref<5xf64>
// CHECK-NOT:    tensor.
// CHECK:        func.return

// STATS: tapeflow-mark-tape-buffers: @diffek: 2 cache buffers marked

func.func @k(%x: memref<5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%s = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<5xf64>
    %p = arith.mulf %s, %xi : f64
    %c = math.cos %p : f64
    scf.yield %c : f64
  } {enzyme.cache_use_tensor}
  return %r : f64
}
func.func @k_grad(%x: memref<5xf64>, %dx: memref<5xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<5xf64>, memref<5xf64>, f64) -> f64
  return %r : f64
}
