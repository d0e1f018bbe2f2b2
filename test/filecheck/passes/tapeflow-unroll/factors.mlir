// RUN: tapeflow-opt -p 'tapeflow-unroll{factor=4 stats=true}' %s 2>&1 | filecheck %s

// Hand-written tapes, to pin how the factor is chosen and what is left alone.
// CHECK: tapeflow-unroll: @diffef: 2 loops unrolled (factors 3, 3)

func.func @f(%x: memref<13xf64>, %n: index) {
  func.return
}

// Every tape loop's factor, in program order (1: left rolled), on the gradient.
// CHECK-LABEL: func.func private @diffef
// CHECK-SAME:  tapeflow.unroll_factors = array<i64: 3, 1, 3, 1, 1>
func.func private @diffef(%x: memref<13xf64>, %n: index) -> f64 attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c13 = arith.constant 13 : index
  %zero = arith.constant 0.0 : f64

  // A FWD loop of 6 iterations (i = 1, 3, ..., 11) and its REV loop: 4 does not
  // divide 6, so both take 3. The FWD copies see i, i + 2, i + 4 (k * step).
  %t = tape.alloc name "t" : !tape.tape<6xf64>
  // CHECK:      %[[T:.*]] = tape.alloc name "t" : !tape.tape<6xf64>
  // CHECK-NEXT: %[[K2:.*]] = arith.constant 2 : index
  // CHECK-NEXT: %[[K4:.*]] = arith.constant 4 : index
  // CHECK-NEXT: %[[STEP:.*]] = arith.constant 6 : index
  // CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] {
  // CHECK-NEXT:   %[[V0:.*]] = memref.load %{{.*}}[%[[I]]] : memref<13xf64>
  // CHECK-NEXT:   %[[J0:.*]] = arith.floordivsi %[[I]], %{{.*}} : index
  // CHECK-NEXT:   tape.store %[[V0]], %[[T]][%[[J0]]] id 0 : f64, !tape.tape<6xf64>
  // CHECK-NEXT:   %[[I1:.*]] = arith.addi %[[I]], %[[K2]] : index
  // CHECK-NEXT:   %[[V1:.*]] = memref.load %{{.*}}[%[[I1]]] : memref<13xf64>
  // CHECK-NEXT:   %[[J1:.*]] = arith.floordivsi %[[I1]], %{{.*}} : index
  // CHECK-NEXT:   tape.store %[[V1]], %[[T]][%[[J1]]] id 3 : f64, !tape.tape<6xf64>
  // CHECK-NEXT:   %[[I2:.*]] = arith.addi %[[I]], %[[K4]] : index
  // CHECK-NEXT:   %[[V2:.*]] = memref.load %{{.*}}[%[[I2]]] : memref<13xf64>
  // CHECK-NEXT:   %[[J2:.*]] = arith.floordivsi %[[I2]], %{{.*}} : index
  // CHECK-NEXT:   tape.store %[[V2]], %[[T]][%[[J2]]] id 4 : f64, !tape.tape<6xf64>
  // CHECK-NEXT: }
  scf.for %i = %c1 to %c13 step %c2 {
    %v = memref.load %x[%i] : memref<13xf64>
    %j = arith.floordivsi %i, %c2 : index
    tape.store %v, %t[%j] id 0 : f64, !tape.tape<6xf64>
  }

  // A FWD loop of 4 iterations whose tape is read back by a REV loop of 3
  // (element 0 is never needed), as in nn. Unrolled by 4 and by 1, REV copy 0
  // would read elements of several FWD copies; the loops are linked, and share
  // the largest factor that divides both trip counts: 1.
  // CHECK:      %[[U:.*]] = tape.alloc name "u" : !tape.tape<4xf64>
  // CHECK-NEXT: scf.for %[[UI:.*]] = %{{.*}} to %{{.*}} step %[[ONE:[^ ]*]] {
  // CHECK-NEXT:   memref.load
  // CHECK-NEXT:   tape.store %{{.*}}, %[[U]][%[[UI]]] id 1 : f64, !tape.tape<4xf64>
  // CHECK-NEXT: }
  %u = tape.alloc name "u" : !tape.tape<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<13xf64>
    tape.store %v, %u[%i] id 1 : f64, !tape.tape<4xf64>
  }

  // A FWD loop with a dynamic trip count is left alone, and so is its REV loop.
  // CHECK:      %[[W:.*]] = tape.alloc name "w" : !tape.tape<4xf64>
  // CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[ONE]] {
  // CHECK-NEXT:   memref.load
  // CHECK-NEXT:   tape.store %{{.*}}, %[[W]][%{{.*}}] id 2 : f64, !tape.tape<4xf64>
  // CHECK-NEXT: }
  %w = tape.alloc name "w" : !tape.tape<4xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<13xf64>
    tape.store %v, %w[%i] id 2 : f64, !tape.tape<4xf64>
  }

  // REV of the first loop: copy k reads what FWD copy 2 - k wrote; the running
  // sum flows from copy to copy.
  // CHECK:      %[[RK1:.*]] = arith.constant 1 : index
  // CHECK-NEXT: %[[RK2:.*]] = arith.constant 2 : index
  // CHECK-NEXT: %[[RSTEP:.*]] = arith.constant 3 : index
  // CHECK-NEXT: %{{.*}} = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %[[RSTEP]] iter_args(%[[S:.*]] = %{{.*}}) -> (f64) {
  // CHECK-NEXT:   %[[E0:.*]] = arith.subi %{{.*}}, %[[R]] : index
  // CHECK-NEXT:   %[[L0:.*]] = tape.load %[[T]][%[[E0]]] from 4 : !tape.tape<6xf64> -> f64
  // CHECK-NEXT:   %[[S1:.*]] = arith.addf %[[S]], %[[L0]] : f64
  // CHECK-NEXT:   %[[R1:.*]] = arith.addi %[[R]], %[[RK1]] : index
  // CHECK-NEXT:   %[[E1:.*]] = arith.subi %{{.*}}, %[[R1]] : index
  // CHECK-NEXT:   %[[L1:.*]] = tape.load %[[T]][%[[E1]]] from 3 : !tape.tape<6xf64> -> f64
  // CHECK-NEXT:   %[[S2:.*]] = arith.addf %[[S1]], %[[L1]] : f64
  // CHECK-NEXT:   %[[R2:.*]] = arith.addi %[[R]], %[[RK2]] : index
  // CHECK-NEXT:   %[[E2:.*]] = arith.subi %{{.*}}, %[[R2]] : index
  // CHECK-NEXT:   %[[L2:.*]] = tape.load %[[T]][%[[E2]]] from 0 : !tape.tape<6xf64> -> f64
  // CHECK-NEXT:   %[[S3:.*]] = arith.addf %[[S2]], %[[L2]] : f64
  // CHECK-NEXT:   scf.yield %[[S3]] : f64
  // CHECK-NEXT: }
  %sum = scf.for %r = %c0 to %c6 step %c1 iter_args(%s = %zero) -> (f64) {
    %j = arith.subi %c5, %r : index
    %v = tape.load %t[%j] from 0 : !tape.tape<6xf64> -> f64
    %next = arith.addf %s, %v : f64
    scf.yield %next : f64
  }

  // CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[ONE]] {
  // CHECK-NEXT:   arith.subi
  // CHECK-NEXT:   tape.load %[[U]][%{{.*}}] from 1 : !tape.tape<4xf64> -> f64
  // CHECK-NEXT:   memref.store
  // CHECK-NEXT: }
  scf.for %r = %c1 to %c4 step %c1 {
    %j = arith.subi %c4, %r : index
    %v = tape.load %u[%j] from 1 : !tape.tape<4xf64> -> f64
    memref.store %v, %x[%j] : memref<13xf64>
  }

  // CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[ONE]] {
  // CHECK-NEXT:   arith.subi
  // CHECK-NEXT:   tape.load %[[W]][%{{.*}}] from 2 : !tape.tape<4xf64> -> f64
  // CHECK-NEXT:   memref.store
  // CHECK-NEXT: }
  scf.for %r = %c0 to %c4 step %c1 {
    %j = arith.subi %c3, %r : index
    %v = tape.load %w[%j] from 2 : !tape.tape<4xf64> -> f64
    memref.store %v, %x[%j] : memref<13xf64>
  }
  func.return %sum : f64
}
