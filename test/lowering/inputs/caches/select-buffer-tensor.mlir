// A buffer chosen per iteration by a data-dependent condition on memory the loop
// overwrites (arith.select of two memrefs, as Polygeist emits a C `p = c ? a : b`
// pointer select), with the loop marked `enzyme.cache_use_tensor`: Enzyme caches
// the i1 condition (tensor<4xi1>) and the loaded value (tensor<4xf64>), and
// selects the shadow buffer again in the reverse sweep. After Enzyme-MLIR's
// enzyme/test/MLIR/ReverseMode/scf_for.mlir (tensor caches) and scf_if.mlir.
func.func @k(%a: memref<4xf64>, %b: memref<4xf64>, %w: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %wi = memref.load %w[%i] : memref<4xf64>
    %c = arith.cmpf ogt, %wi, %one : f64
    %m = arith.select %c, %a, %b : memref<4xf64>
    %v = memref.load %m[%i] : memref<4xf64>
    %sq = arith.mulf %v, %v : f64
    %q = arith.addf %acc, %sq : f64
    %wn = arith.addf %wi, %one : f64
    memref.store %wn, %w[%i] : memref<4xf64>
    scf.yield %q : f64
  } {enzyme.cache_use_tensor}
  return %s : f64
}
func.func @k_grad(%a: memref<4xf64>, %da: memref<4xf64>, %b: memref<4xf64>, %db: memref<4xf64>, %w: memref<4xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%a, %da, %b, %db, %w, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, f64) -> f64
  return %r : f64
}
