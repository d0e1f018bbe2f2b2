// A loop whose trip count depends on the data: Enzyme-MLIR 0.0.16 cannot
// differentiate scf.while ("could not compute the adjoint"). The module must reach
// Enzyme intact (xDSL 0.74 prints scf.while's location before its regions, which
// MLIR rejects) and the message must name the user's op.
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

func.func @double_until_one(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %r = scf.while (%a = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %a, %one : f64
    scf.condition(%c) %a : f64
  } do {
  ^bb0(%b: f64):
    %d = arith.addf %b, %b : f64
    scf.yield %d : f64
  }
  return %r : f64
}
// CHECK: while_rejected.mlir:9:3: error: could not compute the adjoint for this operation
// CHECK-NOT: expected '{' to begin a region

func.func @grad(%x: f64) -> f64 {
  %s = arith.constant 1.0 : f64
  %r = enzyme.autodiff @double_until_one(%x, %s) {activity = [#enzyme<activity enzyme_active>], ret_activity = [#enzyme<activity enzyme_activenoneed>]} : (f64, f64) -> f64
  return %r : f64
}
