// PolyBench seidel-2d's in-place Gauss-Seidel sweep (each point averaged with
// already-updated neighbours, over time steps), in the affine form Polygeist emits
// for PolyBench C (affine.for nests, affine.load/store), with a leaky rectifier
// applied by an scf.if on the averaged value, whose taken branch also reads the
// south neighbour (overwritten later in the sweep, so Enzyme caches it inside the
// branch): a tape stored under scf.if in a depth-3 nest.
// Kinds: PolyBench/C 4.2 seidel-2d (stencils); Polygeist's affine output;
// Enzyme-MLIR ReverseMode scf_if.mlir. Written anew, smaller sizes.
func.func @f(%A: memref<6x6xf64>, %B: memref<6x6xf64>) {
  %third = arith.constant 0.3333333333333333 : f64
  %zero = arith.constant 0.0 : f64
  %leak = arith.constant 0.1 : f64
  affine.for %t = 0 to 2 {
    affine.for %i = 1 to 5 {
      affine.for %j = 1 to 5 {
        %n = affine.load %A[%i - 1, %j] : memref<6x6xf64>
        %w = affine.load %A[%i, %j - 1] : memref<6x6xf64>
        %c = affine.load %A[%i, %j] : memref<6x6xf64>
        %b = affine.load %B[%i, %j] : memref<6x6xf64>
        %s0 = arith.addf %n, %w : f64
        %s1 = arith.addf %s0, %c : f64
        %s2 = arith.mulf %s1, %b : f64
        %m = arith.mulf %s2, %third : f64
        %pos = arith.cmpf ogt, %m, %zero : f64
        %r = scf.if %pos -> (f64) {
          %s = affine.load %A[%i + 1, %j] : memref<6x6xf64>
          %ms = arith.mulf %m, %s : f64
          %sq = math.sin %ms : f64
          scf.yield %sq : f64
        } else {
          %lm = arith.mulf %leak, %m : f64
          scf.yield %lm : f64
        }
        affine.store %r, %A[%i, %j] : memref<6x6xf64>
      }
    }
  }
  return
}

func.func @f_grad(%A: memref<6x6xf64>, %dA: memref<6x6xf64>, %B: memref<6x6xf64>, %dB: memref<6x6xf64>) {
  enzyme.autodiff @f(%A, %dA, %B, %dB) {activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []} : (memref<6x6xf64>, memref<6x6xf64>, memref<6x6xf64>, memref<6x6xf64>) -> ()
  return
}
