// Source: PolyBench/C 4.2, linear-algebra/kernels/atax (y = A^T (A x)), written
// the way Polygeist emits a PolyBench kernel: affine.for nests with affine.load /
// affine.store and a stack temporary (memref.alloca). Sizes are M = 6, N = 5; the
// kernel returns sum_j y[j]^2 so that its gradient is the gradient of a scalar.
// The caller uses Enzyme's property spelling with the opaque activity attribute.
module {
  func.func @atax(%A: memref<6x5xf64>, %x: memref<5xf64>, %y: memref<5xf64>) -> f64 {
    %zero = arith.constant 0.000000e+00 : f64
    %tmp = memref.alloca() : memref<6xf64>
    affine.for %j = 0 to 5 {
      affine.store %zero, %y[%j] : memref<5xf64>
    }
    affine.for %i = 0 to 6 {
      affine.store %zero, %tmp[%i] : memref<6xf64>
      affine.for %j = 0 to 5 {
        %t = affine.load %tmp[%i] : memref<6xf64>
        %a = affine.load %A[%i, %j] : memref<6x5xf64>
        %xj = affine.load %x[%j] : memref<5xf64>
        %p = arith.mulf %a, %xj : f64
        %s = arith.addf %t, %p : f64
        affine.store %s, %tmp[%i] : memref<6xf64>
      }
      affine.for %j = 0 to 5 {
        %yj = affine.load %y[%j] : memref<5xf64>
        %a = affine.load %A[%i, %j] : memref<6x5xf64>
        %t = affine.load %tmp[%i] : memref<6xf64>
        %p = arith.mulf %a, %t : f64
        %s = arith.addf %yj, %p : f64
        affine.store %s, %y[%j] : memref<5xf64>
      }
    }
    %sum = affine.for %j = 0 to 5 iter_args(%acc = %zero) -> (f64) {
      %yj = affine.load %y[%j] : memref<5xf64>
      %sq = arith.mulf %yj, %yj : f64
      %next = arith.addf %acc, %sq : f64
      affine.yield %next : f64
    }
    return %sum : f64
  }

  func.func @atax_grad(%A: memref<6x5xf64>, %dA: memref<6x5xf64>, %x: memref<5xf64>,
                       %dx: memref<5xf64>, %y: memref<5xf64>, %dy: memref<5xf64>) -> f64 {
    %seed = arith.constant 1.000000e+00 : f64
    %r = enzyme.autodiff @atax(%A, %dA, %x, %dx, %y, %dy, %seed) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = [#enzyme<activity enzyme_active>]}> : (memref<6x5xf64>, memref<6x5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, memref<5xf64>, f64) -> f64
    return %r : f64
  }
}
