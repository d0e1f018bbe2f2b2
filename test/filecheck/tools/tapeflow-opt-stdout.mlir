// `-o -` is the standard output, as for mlir-opt (not a file named `-`).
// RUN: tapeflow-opt %s -o - | filecheck %s
// RUN: tapeflow-opt -p tapeflow-measure-tape %S/../passes/Inputs/gradient.mlir -o - | filecheck %s --check-prefix=PASS

// CHECK: func.func @f(%{{.*}}: f64) -> f64
// CHECK: arith.mulf

// PASS: tapeflow.tape_bytes = 32 : i64
func.func @f(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
