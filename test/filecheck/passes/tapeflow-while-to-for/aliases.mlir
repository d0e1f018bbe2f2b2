// RUN: tapeflow-opt -p tapeflow-while-to-for %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=WARN < %t.err

// A loop whose exit sums a buffer that the loop writes under another name (two
// `memref.get_global` of one global) cannot be counted on a first run: the
// count would read the buffer as it was before the loop. It is left as it is,
// with the reason.
// CHECK-LABEL: func.func @two_names
// CHECK:         scf.while
// WARN: aliases.mlir:[[# @LINE + 11]]:3: warning: tapeflow-while-to-for: 'scf.while' left as it is: its exit condition depends on memory the loop writes ('memref.load' of a buffer a store in the loop changes), and no counter bounds its trip count: its condition has no integer comparison ('arith.cmpi')
memref.global "private" @G : memref<3xf64> = dense<0.0>
func.func @two_names(%out: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %ten = arith.constant 10.0 : f64
  %g1 = memref.get_global @G : memref<3xf64>
  %g2 = memref.get_global @G : memref<3xf64>
  %x = scf.while (%x = %zero) : (f64) -> f64 {
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %g2[%j] : memref<3xf64>
      %t = arith.addf %acc, %v : f64
      scf.yield %t : f64
    }
    %sum = arith.addf %s, %x : f64
    %go = arith.cmpf olt, %sum, %ten : f64
    scf.condition(%go) %x : f64
  } do {
  ^bb0(%x2: f64):
    %old = memref.load %g1[%c0] : memref<3xf64>
    %new = arith.addf %old, %one : f64
    memref.store %new, %g1[%c0] : memref<3xf64>
    %x3 = arith.addf %x2, %one : f64
    scf.yield %x3 : f64
  }
  memref.store %x, %out[%c0] : memref<1xf64>
  return
}
