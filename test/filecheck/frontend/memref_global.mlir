// memref.global in MLIR's custom form (xDSL 0.74 reads only the generic one): a
// constant table with its literal's type elided, a splat, a global buffer
// (`uninitialized`), an alignment; printed back in the same form, which MLIR reads.
// RUN: tapeflow-opt %s | filecheck %s
// RUN: tapeflow-opt %s | tapeflow-opt | filecheck %s
// RUN: tapeflow-opt %s --split-input-file -p tapeflow-enzyme | filecheck %s --check-prefix=ENZYME

memref.global "private" constant @weights : memref<4xf64> = dense<[0.5, -1.0, 2.0, 0.25]>
memref.global "private" constant @coef : memref<2x2xf64> = dense<1.5> {alignment = 64 : i64}
memref.global @scratch : memref<3xi64> = uninitialized
memref.global constant @ints : memref<2xi32> = dense<[7, -3]>

// CHECK: memref.global "private" constant @weights : memref<4xf64> = dense<[5.000000e-01, -1.000000e+00, 2.000000e+00, 2.500000e-01]>
// CHECK-NEXT: memref.global "private" constant @coef : memref<2x2xf64> = dense<1.500000e+00> alignment = 64{{$}}
// CHECK-NEXT: memref.global "public" @scratch : memref<3xi64> = uninitialized
// CHECK-NEXT: memref.global "public" constant @ints : memref<2xi32> = dense<[7, -3]>

func.func @dot(%x: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %w = memref.get_global @weights : memref<4xf64>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<4xf64>
    %wi = memref.load %w[%i] : memref<4xf64>
    %p = arith.mulf %xi, %wi : f64
    %e = math.sin %p : f64
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  return %s : f64
}
// CHECK: memref.get_global @weights : memref<4xf64>

func.func @dot_grad(%x: memref<4xf64>, %d_x: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @dot(%x, %d_x, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
// The gradient reads the table through the same global (Enzyme keeps the module's
// globals): the read-back of Enzyme's output parses it.
// ENZYME: memref.global "private" constant @weights : memref<4xf64>
// ENZYME: func.func private @diffedot
// ENZYME: memref.get_global @weights : memref<4xf64>
