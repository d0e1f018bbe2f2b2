// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

// Enzyme-MLIR 0.0.16 traps (SIGTRAP, no diagnostic) on a memref carried from one
// loop iteration to the next: the ping-pong buffers of a time-stepped stencil
// (PolyBench's jacobi-1d, with the swap written as iter_args). Enzyme runs in a
// child process, so the tool reports the crash and names the op it is known to
// crash on, instead of dying.

// CHECK: tapeflow-opt: error: Enzyme crashed (killed by SIGTRAP)
// CHECK: crash.mlir:[[# @LINE + 8]]:3: note: 'scf.for' carries a memref from one iteration to the next

func.func @k(%a: memref<6xf64>, %b: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %h = arith.constant 0.5 : f64
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%src = %a, %dst = %b) -> (memref<6xf64>, memref<6xf64>) {
    scf.for %i = %c1 to %c5 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %src[%im] : memref<6xf64>
      %r = memref.load %src[%ip] : memref<6xf64>
      %p = arith.mulf %l, %r : f64
      %q = arith.mulf %p, %h : f64
      memref.store %q, %dst[%i] : memref<6xf64>
    }
    scf.yield %dst, %src : memref<6xf64>, memref<6xf64>
  }
  return
}
func.func @k_grad(%a: memref<6xf64>, %da: memref<6xf64>, %b: memref<6xf64>, %db: memref<6xf64>) {
  enzyme.autodiff @k(%a, %da, %b, %db) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6xf64>, memref<6xf64>, memref<6xf64>, memref<6xf64>) -> ()
  return
}
