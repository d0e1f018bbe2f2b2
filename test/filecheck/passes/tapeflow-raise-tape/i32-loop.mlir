// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape' %s | filecheck %s

// An `scf.for` over i32 bounds whose induction variable is cast to index
// for an inner loop's bound. The per-iteration caches of the inner loop get a `?`
// extent, their maximum over the outer loop, computed by a clone of the outer loop
// before the forward sweep; that clone counts in i32 like the loop it copies, so
// the cloned `index_cast` still casts i32 to index (it used to count in index,
// and the cast of index to index failed to verify).

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[ZERO:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:   %[[MAX:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BEST:.*]] = %[[ZERO]]) -> (index) : i32 {
// CHECK-NEXT:     %[[START:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:     %[[LEFT:.*]] = arith.subi %{{.*}}, %[[START]] : index
// CHECK-NEXT:     %[[SIZE:.*]] = arith.minsi %[[LEFT]], %{{.*}} : index
// CHECK-NEXT:     %[[BIGGER:.*]] = arith.maxsi %[[BEST]], %[[SIZE]] : index
// CHECK-NEXT:     scf.yield %[[BIGGER]] : index
// CHECK-NEXT:   }
// CHECK-NEXT:   %{{.*}} = tape.alloc(%[[MAX]]) name "load_arg0" : !tape.tape<17x?xf64>
// CHECK:        scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) : i32 {
// CHECK-NEXT:     %[[ROW:.*]] = arith.index_cast %[[IV]] : i32 to index
// CHECK-NEXT:     tape.store %{{.*}}, %{{.*}}[%[[ROW]]] id 0 : f64, !tape.tape<17xf64>
// CHECK-NOT:    arith.index_cast %{{.*}} : index to index

// Source: MLIR's test/Dialect/SCF/for-loop-peeling.mlir
// (@fully_static_bounds_integers): an `scf.for` over i32 bounds (there 0 to 17
// step 4, here step 1), its induction variable cast to index for the tile size
// min(4, 17 - iv). Written anew with values to differentiate: a prefix product of
// each tile of x scales y, and the tiles' last products multiply into y[0].
func.func @f(%x: memref<17xf64>, %y: memref<17xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c17 = arith.constant 17 : index
  %lb = arith.constant 0 : i32
  %step = arith.constant 1 : i32
  %ub = arith.constant 17 : i32
  %one = arith.constant 1.0 : f64
  %r = scf.for %iv = %lb to %ub step %step iter_args(%all = %one) -> (f64) : i32 {
    %start = arith.index_cast %iv : i32 to index
    %left = arith.subi %c17, %start : index
    %size = arith.minsi %c4, %left : index
    %prod = scf.for %j = %c0 to %size step %c1 iter_args(%p = %one) -> (f64) {
      %k = arith.addi %start, %j : index
      %v = memref.load %x[%k] : memref<17xf64>
      %w = memref.load %y[%k] : memref<17xf64>
      %p2 = arith.mulf %p, %v : f64
      %t = math.tanh %p2 : f64
      %u = arith.addf %w, %t : f64
      memref.store %u, %y[%k] : memref<17xf64>
      scf.yield %p2 : f64
    }
    %all2 = arith.mulf %all, %prod : f64
    scf.yield %all2 : f64
  }
  %y0 = memref.load %y[%c0] : memref<17xf64>
  %z = arith.addf %y0, %r : f64
  memref.store %z, %y[%c0] : memref<17xf64>
  return
}

func.func @f_grad(%x: memref<17xf64>, %dx: memref<17xf64>, %y: memref<17xf64>, %dy: memref<17xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<17xf64>, memref<17xf64>, memref<17xf64>, memref<17xf64>) -> ()
  return
}
