// The salam machine's load ordering and Enzyme for LLVM's adjoint additions are
// hardware fields: a run records them (`release` and true unless set), `--set`
// changes them, and a value that names no ordering is refused, naming both.
// RUN: tapeflow-sim %S/../../../tapeflow_benchmarks/mlir/logsum.small.mlir --function logsum_grad --variant enzyme --preset Enzyme32k --model salam --json %t.default.json 2>/dev/null
// RUN: filecheck %s --check-prefix=DEFAULT --input-file %t.default.json
// RUN: tapeflow-sim %S/../../../tapeflow_benchmarks/mlir/logsum.small.mlir --function logsum_grad --variant enzyme --preset Enzyme32k --model salam --set datapath.ordering=strict --set datapath.adjoint_additions=false --json %t.strict.json 2>/dev/null
// RUN: filecheck %s --check-prefix=STRICT --input-file %t.strict.json
// RUN: not tapeflow-sim %S/../../../tapeflow_benchmarks/mlir/logsum.small.mlir --function logsum_grad --variant enzyme --preset Enzyme32k --model salam --set datapath.ordering=loose 2>&1 | filecheck %s --check-prefix=BAD

// DEFAULT:      "datapath": {
// DEFAULT-NEXT:   "adjoint_additions": true,
// DEFAULT:        "ordering": "release",

// STRICT:      "datapath": {
// STRICT-NEXT:   "adjoint_additions": false,
// STRICT:        "ordering": "strict",

// BAD: tapeflow-sim: error: --set datapath.ordering=loose: datapath.ordering = 'loose' is not a load ordering: choose from strict, release
