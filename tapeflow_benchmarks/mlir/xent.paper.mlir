// xent, preset paper (N=64, b=64, K=10, D=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/xent.py, not this file.
func.func @xent(%W: memref<10x16xf64>, %X: memref<64x16xf64>, %label: memref<64xindex>, %b: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %lowest = arith.constant -1.0e300 : f64
  %loss = scf.for %n = %c0 to %b step %c1 iter_args(%l = %zero) -> (f64) {
    %m, %s = scf.for %k = %c0 to %c10 step %c1
        iter_args(%mk = %lowest, %sk = %zero) -> (f64, f64) {
      %z = scf.for %d = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
        %wv = memref.load %W[%k, %d] : memref<10x16xf64>
        %xv = memref.load %X[%n, %d] : memref<64x16xf64>
        %p = arith.mulf %wv, %xv : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %mn = arith.maximumf %mk, %z : f64
      %dm = arith.subf %mk, %mn : f64
      %em = math.exp %dm : f64
      %scaled = arith.mulf %sk, %em : f64
      %dz = arith.subf %z, %mn : f64
      %ez = math.exp %dz : f64
      %sn = arith.addf %scaled, %ez : f64
      scf.yield %mn, %sn : f64, f64
    }
    %y = memref.load %label[%n] : memref<64xindex>
    %zy = scf.for %d = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
      %wv = memref.load %W[%y, %d] : memref<10x16xf64>
      %xv = memref.load %X[%n, %d] : memref<64x16xf64>
      %p = arith.mulf %wv, %xv : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %ls = math.log %s : f64
    %lse = arith.addf %m, %ls : f64
    %ce = arith.subf %lse, %zy : f64
    %nl = arith.addf %l, %ce : f64
    scf.yield %nl : f64
  }
  return %loss : f64
}

func.func @xent_grad(%W: memref<10x16xf64>, %d_W: memref<10x16xf64>, %X: memref<64x16xf64>, %d_X: memref<64x16xf64>, %label: memref<64xindex>, %b: index) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @xent(%W, %d_W, %X, %d_X, %label, %b, %seed) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<10x16xf64>, memref<10x16xf64>, memref<64x16xf64>, memref<64x16xf64>, memref<64xindex>, index, f64) -> f64
  return %r : f64
}
