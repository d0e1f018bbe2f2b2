// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape' %s -o %t.raised.mlir
// RUN: tapeflow-opt -p 'tapeflow-unroll{factor=4}' %t.raised.mlir | filecheck %s
// RUN: tapeflow-opt -p 'tapeflow-unroll{factor=4 stats=true}' %t.raised.mlir -o %t 2>&1 | filecheck %s --check-prefix=STATS
// RUN: tapeflow-opt -p 'tapeflow-unroll{factor=3 stats=true}' %t.raised.mlir -o %t 2>&1 | filecheck %s --check-prefix=STATS3
// RUN: tapeflow-opt -p 'tapeflow-unroll{factor=1}' %t.raised.mlir | diff - %t.raised.mlir

// logsum over 8 elements: Enzyme caches two values per iteration (the running
// product and x[i] - x[0]), two tapes of 8 written by the FWD loop (ids 0 and 1)
// and read, at index 7 - i, by the REV loop. Unrolled by 4, both loops step by 4
// and hold four copies of their body; copy k sees i + k.

// CHECK-LABEL: func.func private @diffelogsum
// CHECK:        %[[P:.*]] = tape.alloc name "iter_arg" : !tape.tape<8xf64>
// CHECK-NEXT:   %[[D:.*]] = tape.alloc name "subf" : !tape.tape<8xf64>
// CHECK-NEXT:   %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[K2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[K3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[STEP:.*]] = arith.constant 4 : index
// FWD: copy 0 keeps the ids 0 and 1; copies 1..3 get fresh ids, 2..4 for the
// product's tape and 5..7 for the other. The product flows from copy to copy.
// CHECK-NEXT:   scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:     tape.store %[[ACC]], %[[P]][%[[I]]] id 0 : f64, !tape.tape<8xf64>
// CHECK:          tape.store %{{.*}}, %[[D]][%[[I]]] id 1 : f64, !tape.tape<8xf64>
// CHECK:          %[[ACC1:.*]] = arith.mulf %[[ACC]], %{{.*}} : f64
// CHECK-NEXT:     %[[I1:.*]] = arith.addi %[[I]], %[[K1]] : index
// CHECK-NEXT:     tape.store %[[ACC1]], %[[P]][%[[I1]]] id 2 : f64, !tape.tape<8xf64>
// CHECK:          tape.store %{{.*}}, %[[D]][%[[I1]]] id 5 : f64, !tape.tape<8xf64>
// CHECK:          %[[ACC2:.*]] = arith.mulf %[[ACC1]], %{{.*}} : f64
// CHECK-NEXT:     %[[I2:.*]] = arith.addi %[[I]], %[[K2]] : index
// CHECK-NEXT:     tape.store %[[ACC2]], %[[P]][%[[I2]]] id 3 : f64, !tape.tape<8xf64>
// CHECK:          tape.store %{{.*}}, %[[D]][%[[I2]]] id 6 : f64, !tape.tape<8xf64>
// CHECK:          %[[ACC3:.*]] = arith.mulf %[[ACC2]], %{{.*}} : f64
// CHECK-NEXT:     %[[I3:.*]] = arith.addi %[[I]], %[[K3]] : index
// CHECK-NEXT:     tape.store %[[ACC3]], %[[P]][%[[I3]]] id 4 : f64, !tape.tape<8xf64>
// CHECK:          tape.store %{{.*}}, %[[D]][%[[I3]]] id 7 : f64, !tape.tape<8xf64>
// CHECK:          %[[ACC4:.*]] = arith.mulf %[[ACC3]], %{{.*}} : f64
// CHECK-NEXT:     scf.yield %[[ACC4]] : f64
// CHECK-NEXT:   }
// REV runs the FWD iterations backwards: its copy k reads what FWD copy 3 - k
// wrote, so the loads name the stores in mirrored order.
// CHECK:        %[[RSTEP:.*]] = arith.constant 4 : index
// CHECK-NEXT:   scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %[[RSTEP]] iter_args
// CHECK-NEXT:     %[[E0:.*]] = arith.subi %{{.*}}, %[[R]] : index
// CHECK-NEXT:     tape.load %[[P]][%[[E0]]] from 4 : !tape.tape<8xf64> -> f64
// CHECK-NEXT:     tape.load %[[D]][%[[E0]]] from 7 : !tape.tape<8xf64> -> f64
// CHECK:          %[[R1:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK-NEXT:     %[[E1:.*]] = arith.subi %{{.*}}, %[[R1]] : index
// CHECK-NEXT:     tape.load %[[P]][%[[E1]]] from 3 : !tape.tape<8xf64> -> f64
// CHECK-NEXT:     tape.load %[[D]][%[[E1]]] from 6 : !tape.tape<8xf64> -> f64
// CHECK:          %[[R2:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK-NEXT:     %[[E2:.*]] = arith.subi %{{.*}}, %[[R2]] : index
// CHECK-NEXT:     tape.load %[[P]][%[[E2]]] from 2 : !tape.tape<8xf64> -> f64
// CHECK-NEXT:     tape.load %[[D]][%[[E2]]] from 5 : !tape.tape<8xf64> -> f64
// CHECK:          %[[R3:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK-NEXT:     %[[E3:.*]] = arith.subi %{{.*}}, %[[R3]] : index
// CHECK-NEXT:     tape.load %[[P]][%[[E3]]] from 0 : !tape.tape<8xf64> -> f64
// CHECK-NEXT:     tape.load %[[D]][%[[E3]]] from 1 : !tape.tape<8xf64> -> f64
// CHECK-NOT:      tape.load
// CHECK:          scf.yield
// CHECK-NEXT:   }
// CHECK-NOT:    scf.for

// STATS: tapeflow-unroll: @diffelogsum: 2 loops unrolled (factors 4, 4)
// A factor that does not divide the trip count of 8: the largest divisor below it.
// STATS3: tapeflow-unroll: @diffelogsum: 2 loops unrolled (factors 2, 2)

func.func @logsum(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %A = memref.load %x[%c0] : memref<8xf64>
  %sema = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %one) -> (f64) {
    %xi = memref.load %x[%i] : memref<8xf64>
    %d = arith.subf %xi, %A : f64
    %e = math.exp %d : f64
    %next = arith.mulf %acc, %e : f64
    scf.yield %next : f64
  }
  %log = math.log %sema : f64
  %r = arith.addf %log, %A : f64
  return %r : f64
}

func.func @grad(%x: memref<8xf64>, %d_x: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logsum(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  return %r : f64
}
