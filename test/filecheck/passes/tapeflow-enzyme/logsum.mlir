// RUN: tapeflow-opt -p tapeflow-enzyme %s | filecheck %s
// RUN: not tapeflow-opt -p tapeflow-enzyme %S/Inputs/undifferentiable.mlir 2>&1 | filecheck %s --check-prefix=REJECT

// The caller keeps its name and signature and calls Enzyme's gradient function,
// whose caches are memref buffers: written in the FWD loop, read in the reversed
// REV loop, freed at the end.
// CHECK-LABEL: func.func @grad(%{{.*}}: memref<8xf64>, %{{.*}}: memref<8xf64>) -> f64
// CHECK:        func.call @diffelogsum
// The gradient function records what it differentiates, for tapeflow-raise-tape.
// CHECK-LABEL: func.func private @diffelogsum
// CHECK-SAME:   tapeflow.gradient_of = @logsum
// CHECK-SAME:   tapeflow.activity = [#enzyme.activity<enzyme_dup>]
// CHECK-SAME:   tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]
// CHECK:        %[[C0:.*]] = memref.alloc() : memref<8xf64>
// CHECK:        %[[C1:.*]] = memref.alloc() : memref<8xf64>
// CHECK:        scf.for
// CHECK:          memref.store %{{.*}}, %[[C0]][%{{.*}}] : memref<8xf64>
// CHECK:          memref.store %{{.*}}, %[[C1]][%{{.*}}] : memref<8xf64>
// CHECK:        scf.for
// CHECK:          %[[R:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK:          memref.load %[[C0]][%[[R]]] : memref<8xf64>
// CHECK:          memref.load %[[C1]][%[[R]]] : memref<8xf64>
// CHECK:        memref.dealloc
// CHECK-NOT:    loc(

// Enzyme's own diagnostic, at the op of the user's file that it is about.
// REJECT: undifferentiable.mlir:4:3: error: cannot differentiate a call to a function without a body and without a registered derivative: "opaque"
// REJECT-NEXT: (Enzyme rejected the module, pipeline 'lower-affine,canonicalize,enzyme,{{.*}}')
// REJECT-NOT: loc(
// REJECT-NOT: Traceback

func.func @logsum(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %a = memref.load %x[%c0] : memref<8xf64>
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %one) -> (f64) {
    %v = memref.load %x[%i] : memref<8xf64>
    %d = arith.subf %v, %a : f64
    %e = math.exp %d : f64
    %m = arith.mulf %acc, %e : f64
    scf.yield %m : f64
  }
  %l = math.log %s : f64
  %r = arith.addf %l, %a : f64
  func.return %r : f64
}
func.func @grad(%x: memref<8xf64>, %dx: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @logsum(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  func.return %r : f64
}
