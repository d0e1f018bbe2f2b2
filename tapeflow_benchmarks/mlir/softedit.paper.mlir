// softedit, preset paper (P=64, LA=12, LB=12).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/softedit.py, not this file.
func.func @softedit(%aoff: memref<65xindex>, %boff: memref<65xindex>, %xa: memref<451xf64>, %xb: memref<446xf64>, %R: memref<64x13x13xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %p = %c0 to %c64 step %c1 {
    %p1 = arith.addi %p, %c1 : index
    %a0 = memref.load %aoff[%p] : memref<65xindex>
    %a1 = memref.load %aoff[%p1] : memref<65xindex>
    %b0 = memref.load %boff[%p] : memref<65xindex>
    %b1 = memref.load %boff[%p1] : memref<65xindex>
    %la = arith.subi %a1, %a0 : index
    %lb = arith.subi %b1, %b0 : index
    %ia = arith.addi %la, %c1 : index
    %jb = arith.addi %lb, %c1 : index
    scf.for %i = %c1 to %ia step %c1 {
      %im = arith.subi %i, %c1 : index
      %ai = arith.addi %a0, %im : index
      %xi = memref.load %xa[%ai] : memref<451xf64>
      scf.for %j = %c1 to %jb step %c1 {
        %jm = arith.subi %j, %c1 : index
        %bj = arith.addi %b0, %jm : index
        %yj = memref.load %xb[%bj] : memref<446xf64>
        %d = arith.subf %xi, %yj : f64
        %c = arith.mulf %d, %d : f64
        %up = memref.load %R[%p, %im, %j] : memref<64x13x13xf64>
        %left = memref.load %R[%p, %i, %jm] : memref<64x13x13xf64>
        %diag = memref.load %R[%p, %im, %jm] : memref<64x13x13xf64>
        %u = arith.addf %up, %one : f64
        %v = arith.addf %left, %one : f64
        %w = arith.addf %diag, %c : f64
        %nu = arith.negf %u : f64
        %nv = arith.negf %v : f64
        %nw = arith.negf %w : f64
        %eu = math.exp %nu : f64
        %ev = math.exp %nv : f64
        %ew = math.exp %nw : f64
        %s1 = arith.addf %eu, %ev : f64
        %s2 = arith.addf %s1, %ew : f64
        %l = math.log %s2 : f64
        %r = arith.negf %l : f64
        memref.store %r, %R[%p, %i, %j] : memref<64x13x13xf64>
      }
    }
  }
  return
}

func.func @softedit_grad(%aoff: memref<65xindex>, %boff: memref<65xindex>, %xa: memref<451xf64>, %d_xa: memref<451xf64>, %xb: memref<446xf64>, %d_xb: memref<446xf64>, %R: memref<64x13x13xf64>, %d_R: memref<64x13x13xf64>) {
  enzyme.autodiff @softedit(%aoff, %boff, %xa, %d_xa, %xb, %d_xb, %R, %d_R) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<65xindex>, memref<65xindex>, memref<451xf64>, memref<451xf64>, memref<446xf64>, memref<446xf64>, memref<64x13x13xf64>, memref<64x13x13xf64>) -> ()
  return
}
