// softdtw, preset paper (N=96, W=12).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/softdtw.py, not this file.
func.func @softdtw(%x: memref<96xf64>, %y: memref<96xf64>, %R: memref<97x97xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %c97 = arith.constant 97 : index
  %neg = arith.constant -1.0 : f64
  %g = arith.constant 1.0 : f64
  scf.for %i = %c1 to %c97 step %c1 {
    %im = arith.subi %i, %c1 : index
    %from = arith.subi %i, %c12 : index
    %lo = arith.maxsi %from, %c1 : index
    %to = arith.addi %i, %c13 : index
    %hi = arith.minsi %to, %c97 : index
    %xv = memref.load %x[%im] : memref<96xf64>
    scf.for %j = %lo to %hi step %c1 {
      %jm = arith.subi %j, %c1 : index
      %yv = memref.load %y[%jm] : memref<96xf64>
      %diff = arith.subf %xv, %yv : f64
      %cost = arith.mulf %diff, %diff : f64
      %a = memref.load %R[%im, %jm] : memref<97x97xf64>
      %b = memref.load %R[%im, %j] : memref<97x97xf64>
      %c = memref.load %R[%i, %jm] : memref<97x97xf64>
      %na = arith.mulf %a, %neg : f64
      %nb = arith.mulf %b, %neg : f64
      %nc = arith.mulf %c, %neg : f64
      %ea = math.exp %na : f64
      %eb = math.exp %nb : f64
      %ec = math.exp %nc : f64
      %sab = arith.addf %ea, %eb : f64
      %z = arith.addf %sab, %ec : f64
      %lz = math.log %z : f64
      %soft = arith.mulf %g, %lz : f64
      %r = arith.subf %cost, %soft : f64
      memref.store %r, %R[%i, %j] : memref<97x97xf64>
    }
  }
  return
}

func.func @softdtw_grad(%x: memref<96xf64>, %d_x: memref<96xf64>, %y: memref<96xf64>, %d_y: memref<96xf64>, %R: memref<97x97xf64>, %d_R: memref<97x97xf64>) {
  enzyme.autodiff @softdtw(%x, %d_x, %y, %d_y, %R, %d_R) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<96xf64>, memref<97x97xf64>, memref<97x97xf64>) -> ()
  return
}
