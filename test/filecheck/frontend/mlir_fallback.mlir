// What xDSL's parser cannot read (here an affine.if with an integer set) is read
// by the real MLIR parser, affine lowered by MLIR's lower-affine; every op keeps
// its position in this file. Text that neither parser reads gets xDSL's
// diagnostic, located in the user's file.
// RUN: tapeflow-opt %s --print-debuginfo | filecheck %s
// RUN: not tapeflow-opt %S/Inputs/unreadable.mlir 2>&1 | filecheck %s --check-prefix=BAD

func.func @shift(%a: memref<8xf64>) {
  affine.for %i = 0 to 8 {
    affine.if affine_set<(d0) : (d0 - 3 >= 0)>(%i) {
      %v = affine.load %a[%i - 3] : memref<8xf64>
      affine.store %v, %a[%i] : memref<8xf64>
    }
  }
  return
}
// CHECK-LABEL: func.func @shift
// CHECK: scf.for
// CHECK: arith.cmpi sge
// CHECK: scf.if
// CHECK: memref.load {{.*}} loc("{{.*}}mlir_fallback.mlir":11:
// CHECK: memref.store {{.*}} loc("{{.*}}mlir_fallback.mlir":12:
// CHECK-NOT: affine.{{(for|load|store|yield)}}

// BAD: unreadable.mlir:3:32: error:
