// RUN: tapeflow-opt -p 'tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// Tensor chains on a hand-written gradient function: %good has Enzyme's cache
// shape (tensor.empty through the FWD loop's iter_args, one insert per
// iteration, read only once complete) and becomes a tape; %peek is read inside
// the FWD loop before it is complete, %twice has a version updated twice. Those
// two stay tensors, which the executor runs with MLIR's value semantics.

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[T:.*]] = tape.alloc name "mulf" : !tape.tape<4xf64>
// CHECK:        tensor.empty() : tensor<4xf64>
// CHECK:        tensor.empty() : tensor<4xf64>
// CHECK:        scf.for {{.*}} -> (f64, tensor<4xf64>, tensor<4xf64>) {
// CHECK:          tape.store %{{.*}}, %[[T]][%{{.*}}] id 0 : f64, !tape.tape<4xf64>
// CHECK:          tensor.insert
// CHECK:          tensor.extract
// CHECK:        tape.load %[[T]][%{{.*}}] from 0 : !tape.tape<4xf64> -> f64

// STATS: tapeflow-raise-tape: @diffef: 1 tapes, 4 values, 32 bytes
// STATS-NEXT: tape mulf
// STATS-NEXT: kept as tensors: tensor cache tensor<4xf64> (loop iter_arg 2): a version of the tensor cache is used 2 times, not once
// STATS-NEXT: kept as tensors: tensor cache tensor<4xf64> (loop iter_arg 3): a version of the tensor cache is used 2 times, not once

func.func @f(%x: memref<4xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  func.return %z : f64
}

func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) -> f64 attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4xf64>
  %e2 = tensor.empty() : tensor<4xf64>
  %e3 = tensor.empty() : tensor<4xf64>
  // FWD
  %sum, %good, %peek, %twice = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero, %g = %e, %p = %e2, %t = %e3) -> (f64, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
    %v = memref.load %x[%i] : memref<4xf64>
    %sq = arith.mulf %v, %v : f64
    %g2 = tensor.insert %sq into %g[%i] : tensor<4xf64>
    %p2 = tensor.insert %sq into %p[%i] : tensor<4xf64>
    %seen = tensor.extract %p2[%c0] : tensor<4xf64>
    %t2 = tensor.insert %sq into %t[%i] : tensor<4xf64>
    %t3 = tensor.insert %seen into %t[%c0] : tensor<4xf64>
    %next = arith.addf %acc, %sq : f64
    scf.yield %next, %g2, %p2, %t2 : f64, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
  }
  // REV
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %i : index
    %w = tensor.extract %good[%r] : tensor<4xf64>
    %q = tensor.extract %peek[%r] : tensor<4xf64>
    %u = tensor.extract %twice[%r] : tensor<4xf64>
    %d = arith.mulf %seed, %w : f64
    %d2 = arith.addf %d, %q : f64
    %d3 = arith.addf %d2, %u : f64
    memref.store %d3, %dx[%r] : memref<4xf64>
  }
  func.return %sum : f64
}
