// A loop whose trip count depends on memory the loop itself writes, with no
// counter to bound it: no rewrite of tapeflow-while-to-for applies (a first run
// to count its iterations would change that memory), so Enzyme-MLIR 0.0.16 gets
// the scf.while and cannot differentiate it ("could not compute the adjoint").
// The module must reach Enzyme intact (xDSL 0.74 prints scf.while's location
// before its regions, which MLIR rejects), the message must name the user's op,
// and a note must say why the loop was not rewritten. (The same loop on a value
// carried in registers, `while (a < 1) a = a + a`, is differentiated: see
// test/lowering/test_while_loops.py.)
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

func.func @double_until_one(%x: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f64
  scf.while () : () -> () {
    %a = memref.load %x[%c0] : memref<1xf64>
    %c = arith.cmpf olt, %a, %one : f64
    scf.condition(%c)
  } do {
  ^bb0():
    %b = memref.load %x[%c0] : memref<1xf64>
    %d = arith.addf %b, %b : f64
    memref.store %d, %x[%c0] : memref<1xf64>
    scf.yield
  }
  return
}
// CHECK: while_rejected.mlir:[[# @LINE - 13]]:3: error: could not compute the adjoint for this operation
// CHECK-NOT: expected '{' to begin a region
// CHECK: while_rejected.mlir:[[# @LINE - 15]]:3: note: tapeflow-while-to-for could not rewrite this 'scf.while' into an 'scf.for': its exit condition depends on memory the loop writes ('memref.load' of a buffer a store in the loop changes), and no counter bounds its trip count: its condition has no integer comparison ('arith.cmpi')

func.func @grad(%x: memref<1xf64>, %dx: memref<1xf64>) {
  enzyme.autodiff @double_until_one(%x, %dx) {activity = [#enzyme<activity enzyme_dup>], ret_activity = []} : (memref<1xf64>, memref<1xf64>) -> ()
  return
}
