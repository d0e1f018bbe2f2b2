// RUN: not tapeflow-opt -p 'tapeflow-unroll{factor=2}' %s 2>&1 | filecheck %s

// Links the pass cannot keep. The error names the loop that cannot be unrolled.

// REV iteration r reads element r / 2 (0, 0, 1, 1): unrolled by 2, REV copy 0 reads
// elements 0 and 1, which FWD copies 0 and 1 write; one load names one store.
// CHECK: tapeflow-opt: error: tapeflow-unroll: cannot unroll the scf.for at {{.*}}unpairable.mlir:[[# @LINE + 15]]:3 in @diffehalf: copy 0 of the 'tape.load' at {{.*}}unpairable.mlir:[[# @LINE + 17]]:5 reads elements written by copies 0, 1 of store 0; one load names one store
// CHECK-NOT: Traceback
func.func @half(%x: memref<4xf64>) {
  func.return
}
func.func private @diffehalf(%x: memref<4xf64>) attributes {tapeflow.gradient_of = @half} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = tape.alloc : !tape.tape<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    tape.store %v, %t[%i] id 0 : f64, !tape.tape<4xf64>
  }
  scf.for %r = %c0 to %c4 step %c1 {
    %j = arith.floordivsi %r, %c2 : index
    %v = tape.load %t[%j] from 0 : !tape.tape<4xf64> -> f64
    memref.store %v, %x[%r] : memref<4xf64>
  }
  func.return
}
