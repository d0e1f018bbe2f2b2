// An Enzyme gradient passes through unchanged (the variants' pipelines start with
// tapeflow-enzyme from either stage); a module with nothing to differentiate and
// no gradient is an error, not a silent no-op.
// RUN: tapeflow-opt -p tapeflow-enzyme %S/../Inputs/gradient.mlir -o %t.after
// RUN: tapeflow-opt %S/../Inputs/gradient.mlir -o %t.before
// RUN: diff %t.before %t.after
// RUN: not tapeflow-opt -p tapeflow-enzyme %s 2>&1 | filecheck %s

// CHECK: tapeflow-opt: error: tapeflow-enzyme: the module has no enzyme.autodiff to differentiate (and no gradient function tapeflow-enzyme made); add an enzyme.autodiff caller of the function to differentiate
// CHECK-NOT: Traceback

func.func @f(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
