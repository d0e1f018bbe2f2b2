// The indirect gather of index-gather.mlir with its loop marked
// `enzyme.cache_use_tensor`: the index values are cached in a tensor<6xindex>
// (after Enzyme-MLIR's enzyme/test/MLIR/ReverseMode/scf_for.mlir tensor caches
// and its mutable-memory tests).
func.func @k(%x: memref<5xf64>, %col: memref<6xindex>, %val: memref<6xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f64) {
    %j = memref.load %col[%k] : memref<6xindex>
    %xj = memref.load %x[%j] : memref<5xf64>
    %v = memref.load %val[%k] : memref<6xf64>
    %p = arith.mulf %v, %xj : f64
    %q = arith.mulf %p, %xj : f64
    %n = arith.addf %acc, %q : f64
    %j1 = arith.addi %j, %c1 : index
    %j2 = arith.remui %j1, %c5 : index
    memref.store %j2, %col[%k] : memref<6xindex>
    scf.yield %n : f64
  } {enzyme.cache_use_tensor}
  return %r : f64
}
func.func @k_grad(%x: memref<5xf64>, %dx: memref<5xf64>, %col: memref<6xindex>, %val: memref<6xf64>, %dval: memref<6xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @k(%x, %dx, %col, %val, %dval, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<5xf64>, memref<5xf64>, memref<6xindex>, memref<6xf64>, memref<6xf64>, f64) -> f64
  return %r : f64
}
