// heat3d, preset paper (T=8, N=12).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/heat3d.py, not this file.
func.func @heat3d(%A: memref<12x12x12xf64>, %B: memref<12x12x12xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c11 = arith.constant 11 : index
  %two = arith.constant 2.0 : f64
  %eighth = arith.constant 0.125 : f64
  scf.for %t = %c0 to %c8 step %c1 {
    scf.for %i = %c1 to %c11 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      scf.for %j = %c1 to %c11 step %c1 {
        %jm = arith.subi %j, %c1 : index
        %jp = arith.addi %j, %c1 : index
        scf.for %k = %c1 to %c11 step %c1 {
          %km = arith.subi %k, %c1 : index
          %kp = arith.addi %k, %c1 : index
          %v = memref.load %A[%i, %j, %k] : memref<12x12x12xf64>
          %v2 = arith.mulf %two, %v : f64
          %xp = memref.load %A[%ip, %j, %k] : memref<12x12x12xf64>
          %xm = memref.load %A[%im, %j, %k] : memref<12x12x12xf64>
          %yp = memref.load %A[%i, %jp, %k] : memref<12x12x12xf64>
          %ym = memref.load %A[%i, %jm, %k] : memref<12x12x12xf64>
          %zp = memref.load %A[%i, %j, %kp] : memref<12x12x12xf64>
          %zm = memref.load %A[%i, %j, %km] : memref<12x12x12xf64>
          %x1 = arith.subf %xp, %v2 : f64
          %x2 = arith.addf %x1, %xm : f64
          %y1 = arith.subf %yp, %v2 : f64
          %y2 = arith.addf %y1, %ym : f64
          %z1 = arith.subf %zp, %v2 : f64
          %z2 = arith.addf %z1, %zm : f64
          %xy = arith.addf %x2, %y2 : f64
          %xyz = arith.addf %xy, %z2 : f64
          %w = arith.mulf %eighth, %xyz : f64
          %u = arith.addf %w, %v : f64
          %act = math.tanh %u : f64
          memref.store %act, %B[%i, %j, %k] : memref<12x12x12xf64>
        }
      }
    }
    scf.for %i = %c1 to %c11 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      scf.for %j = %c1 to %c11 step %c1 {
        %jm = arith.subi %j, %c1 : index
        %jp = arith.addi %j, %c1 : index
        scf.for %k = %c1 to %c11 step %c1 {
          %km = arith.subi %k, %c1 : index
          %kp = arith.addi %k, %c1 : index
          %v = memref.load %B[%i, %j, %k] : memref<12x12x12xf64>
          %v2 = arith.mulf %two, %v : f64
          %xp = memref.load %B[%ip, %j, %k] : memref<12x12x12xf64>
          %xm = memref.load %B[%im, %j, %k] : memref<12x12x12xf64>
          %yp = memref.load %B[%i, %jp, %k] : memref<12x12x12xf64>
          %ym = memref.load %B[%i, %jm, %k] : memref<12x12x12xf64>
          %zp = memref.load %B[%i, %j, %kp] : memref<12x12x12xf64>
          %zm = memref.load %B[%i, %j, %km] : memref<12x12x12xf64>
          %x1 = arith.subf %xp, %v2 : f64
          %x2 = arith.addf %x1, %xm : f64
          %y1 = arith.subf %yp, %v2 : f64
          %y2 = arith.addf %y1, %ym : f64
          %z1 = arith.subf %zp, %v2 : f64
          %z2 = arith.addf %z1, %zm : f64
          %xy = arith.addf %x2, %y2 : f64
          %xyz = arith.addf %xy, %z2 : f64
          %w = arith.mulf %eighth, %xyz : f64
          %u = arith.addf %w, %v : f64
          memref.store %u, %A[%i, %j, %k] : memref<12x12x12xf64>
        }
      }
    }
  }
  return
}

func.func @heat3d_grad(%A: memref<12x12x12xf64>, %d_A: memref<12x12x12xf64>, %B: memref<12x12x12xf64>, %d_B: memref<12x12x12xf64>) {
  enzyme.autodiff @heat3d(%A, %d_A, %B, %d_B) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<12x12x12xf64>, memref<12x12x12xf64>, memref<12x12x12xf64>, memref<12x12x12xf64>) -> ()
  return
}
