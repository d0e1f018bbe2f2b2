// The salam machine's load ordering and Enzyme for LLVM's adjoint additions are
// hardware fields: a run records them (`strict` and false unless set), `--set`
// changes them, and a value that names no ordering is refused, naming both.
// RUN: tapeflow-sim %S/../../../tapeflow_benchmarks/mlir/logsum.small.mlir --function logsum_grad --variant enzyme --preset Enzyme32k --model salam --json %t.default.json 2>/dev/null
// RUN: filecheck %s --check-prefix=DEFAULT --input-file %t.default.json
// RUN: tapeflow-sim %S/../../../tapeflow_benchmarks/mlir/logsum.small.mlir --function logsum_grad --variant enzyme --preset Enzyme32k --model salam --set datapath.ordering=release --set datapath.adjoint_additions=true --json %t.release.json 2>/dev/null
// RUN: filecheck %s --check-prefix=RELEASE --input-file %t.release.json
// RUN: not tapeflow-sim %S/../../../tapeflow_benchmarks/mlir/logsum.small.mlir --function logsum_grad --variant enzyme --preset Enzyme32k --model salam --set datapath.ordering=loose 2>&1 | filecheck %s --check-prefix=BAD

// DEFAULT:      "datapath": {
// DEFAULT-NEXT:   "adjoint_additions": false,
// DEFAULT:        "ordering": "strict",

// RELEASE:      "datapath": {
// RELEASE-NEXT:   "adjoint_additions": true,
// RELEASE:        "ordering": "release",

// BAD: tapeflow-sim: error: --set datapath.ordering=loose: datapath.ordering = 'loose' is not a load ordering: choose from strict, release
