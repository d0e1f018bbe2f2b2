// RUN: not tapeflow-opt -p 'tapeflow-unroll{factor=2}' %s 2>&1 | filecheck %s

// An index computed by an op the evaluator does not know (here a logical
// shift): the link cannot be established, so the loop is not unrolled blindly.
// CHECK: tapeflow-opt: error: tapeflow-unroll: cannot unroll the scf.for at {{.*}}opaque-index.mlir:[[# @LINE + 15]]:3 in @diffeopaque: which copy of store 0 the 'tape.load' at {{.*}}opaque-index.mlir:[[# @LINE + 17]]:5 reads cannot be established: an index is computed by 'arith.shrui'
// CHECK-NOT: Traceback
func.func @opaque(%x: memref<4xf64>) {
  func.return
}
func.func private @diffeopaque(%x: memref<4xf64>) attributes {tapeflow.gradient_of = @opaque} {
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
    %j = arith.shrui %r, %c2 : index
    %v = tape.load %t[%j] from 0 : !tape.tape<4xf64> -> f64
    memref.store %v, %x[%r] : memref<4xf64>
  }
  func.return
}
