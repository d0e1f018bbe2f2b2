// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// Only the inner loop is marked `enzyme.cache_use_tensor` (Enzyme-MLIR's
// enzyme/test/MLIR/ReverseMode/scf_for.mlir attribute) in a PolyBench-style row
// loop: the outer loop caches in memref mode, so Enzyme keeps each row's tensor
// cache, as a value, in a memref<2xtensor<3xf64>>. raise-tape makes the pair one
// 2x3 tape, written at [row, column] inside the inner loop and read back there.

// CHECK-LABEL: func.func private @diffek
// CHECK-NOT:    tensor.
// CHECK:        %[[T:.*]] = tape.alloc name "{{.*}}" : !tape.tape<2x3xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK:          scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK:            tape.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] id {{[0-9]+}} : f64, !tape.tape<2x3xf64>
// CHECK:        scf.for
// CHECK:          scf.for
// CHECK:            tape.load %{{.*}}[%{{.*}}, %{{.*}}] from {{[0-9]+}} : !tape.tape<2x3xf64> -> f64
// CHECK-NOT:    tensor.

// STATS: tapeflow-raise-tape: @diffek:
// STATS-NOT: kept

func.func @k(%A: memref<2x3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %total = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %c0 to %c3 step %c1 iter_args(%t = %acc) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<2x3xf64>
      %s = math.sin %a : f64
      %u = arith.mulf %s, %t : f64
      %v = arith.addf %u, %a : f64
      scf.yield %v : f64
    } {enzyme.cache_use_tensor}
    %h = math.tanh %row : f64
    scf.yield %h : f64
  }
  return %total : f64
}
func.func @k_grad(%A: memref<2x3xf64>, %dA: memref<2x3xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%A, %dA, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<2x3xf64>, memref<2x3xf64>, f64) -> f64
  return %r : f64
}
