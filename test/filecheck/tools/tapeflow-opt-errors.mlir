// Bad input: a located diagnostic on stderr, a non-zero exit, no traceback.
// RUN: not tapeflow-opt %s 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not tapeflow-opt %S/Inputs/syntax-error.mlir 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not tapeflow-opt %S/Inputs/unknown-op.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not tapeflow-opt %S/Inputs/no-such-file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tapeflow-opt -p no-such-pass %s 2>&1 | filecheck %s --check-prefix=PASS

func.func @f(%i: index) -> f64 {
  %t = tape.alloc : !tape.tape<8xf64>
  %v = tape.load %t[%i] from 0 : !tape.tape<8xf64> -> f64
  func.return %v : f64
}

// VERIFY: tapeflow-opt-errors.mlir:10:3: error: 'tape.load' reads the value of store 0, but no 'tape.store' with that id writes this container
// VERIFY-NOT: Traceback
// SYNTAX: syntax-error.mlir:3:3: error: Expected 'x' in shape delimiter, got func.return
// SYNTAX-NOT: Traceback
// UNKNOWN: unknown-op.mlir:3:14: error: Operation tape.stash is not registered
// UNKNOWN-NOT: Traceback
// MISSING: tapeflow-opt: error: No such file or directory: {{.*}}no-such-file.mlir
// PASS: tapeflow-opt: error: -p: unknown pass 'no-such-pass'
// PASS-NOT: Traceback
