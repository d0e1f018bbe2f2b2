// RUN: not tapeflow-opt -p 'tapeflow-unroll-primal' %s 2>&1 | filecheck %s

// An annotated loop whose trip count is not constant cannot be unrolled as asked.
// CHECK: tapeflow-unroll-primal: cannot unroll the scf.for at {{.*}}refused.mlir:10:3 as its tapeflow.unroll asks: its bounds and step are not all constants

func.func @f(%x: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%a = %one) -> (f64) {
    %v = memref.load %x[%j] : memref<?xf64>
    %r = arith.mulf %a, %v : f64
    scf.yield %r : f64
  } {tapeflow.unroll = 4 : i64}
  func.return %s : f64
}
