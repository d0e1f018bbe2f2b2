// What tapeflow-to-upstream cannot write as upstream MLIR is an error naming the
// pass, the function or the op and what to do instead.
// RUN: not tapeflow-opt -p tapeflow-to-upstream %S/../tapeflow-enzyme/logsum.mlir 2>&1 | filecheck %s --check-prefix=PRIMAL
// RUN: not tapeflow-opt -p tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-to-upstream %S/../tapeflow-enzyme/logsum.mlir 2>&1 | filecheck %s --check-prefix=REGIONS
// RUN: not tapeflow-opt -p tapeflow-to-upstream %s 2>&1 | filecheck %s --check-prefix=FOREIGN

// PRIMAL: logsum.mlir:{{[0-9]+}}:{{[0-9]+}}: tapeflow-to-upstream: 'enzyme.autodiff' has no upstream MLIR form here {{.*}}; differentiate it first with tapeflow-enzyme
// REGIONS: tapeflow-to-upstream: @diffe{{.*}} is at the region stage {{.*}}; run tapeflow-to-upstream before tapeflow-regions
// FOREIGN: errors.mlir:[[# @LINE + 5]]:3: tapeflow-to-upstream: 'gpu.barrier' has no upstream MLIR form here

func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = []} {
  %c0 = arith.constant 0 : index
  %v = memref.load %dx[%c0] : memref<4xf64>
  "gpu.barrier"() : () -> ()
  memref.store %v, %x[%c0] : memref<4xf64>
  func.return
}
func.func @f(%x: memref<4xf64>) {
  func.return
}
