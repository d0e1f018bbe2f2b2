// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: filecheck %s --check-prefix=NOWARN < %t.stats

// Enzyme's tensor caches (`enzyme.cache_use_tensor`, as in Enzyme-MLIR's
// enzyme/test/MLIR/ReverseMode/scf_for.mlir) on a loop nest in the shape of
// PolyBench's atax row sums: the inner loop caches in a tensor<3xf64> that the
// outer loop puts into a tensor<2x3xf64> with tensor.insert_slice, and the
// reverse sweep takes the row out with tensor.extract_slice. raise-tape makes
// each chain one tape, stored at [row, column] and read back there, and drops
// the tensors from the loops.

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
// CHECK:        func.return

// NOWARN-NOT: warning
// STATS: tapeflow-raise-tape: @diffek: {{[2-9]}} tapes
// STATS-NOT: kept

func.func @k(%A: memref<2x3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %total = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %c0 to %c3 step %c1 iter_args(%t = %zero) -> (f64) {
      %a = memref.load %A[%i, %j] : memref<2x3xf64>
      %p = arith.mulf %a, %t : f64
      %u = arith.addf %p, %a : f64
      scf.yield %u : f64
    } {enzyme.cache_use_tensor}
    %h = math.tanh %row : f64
    %acc2 = arith.addf %acc, %h : f64
    scf.yield %acc2 : f64
  } {enzyme.cache_use_tensor}
  return %total : f64
}
func.func @k_grad(%A: memref<2x3xf64>, %dA: memref<2x3xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%A, %dA, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<2x3xf64>, memref<2x3xf64>, f64) -> f64
  return %r : f64
}
