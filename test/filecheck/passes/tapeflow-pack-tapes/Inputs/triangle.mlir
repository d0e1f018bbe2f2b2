// lu's j < i triangle at the tape stage (tapeflow-raise-tape's output for
// PolyBench-style 'for i < 4; for j < i', written out): ragged extents (4, i).
builtin.module {
  func.func @f(%arg0: memref<4x4xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %arg1 = %c0 to %c4 step %c1 {
      scf.for %arg2 = %c0 to %arg1 step %c1 {
        %0 = memref.load %arg0[%arg1, %arg2] : memref<4x4xf64>
        %1 = arith.mulf %0, %0 : f64
        memref.store %1, %arg0[%arg1, %arg2] : memref<4x4xf64>
      }
    }
    func.return
  }
  func.func @f_grad(%arg0: memref<4x4xf64>, %arg1: memref<4x4xf64>) {
    func.call @diffef(%arg0, %arg1) : (memref<4x4xf64>, memref<4x4xf64>) -> ()
    func.return
  }
  func.func private @diffef(%arg0: memref<4x4xf64>, %arg1: memref<4x4xf64>) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = []} {
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f64
    %0 = arith.constant 0 : index
    %1 = scf.for %2 = %c0 to %c4 step %c1 iter_args(%3 = %0) -> (index) {
      %4 = arith.maxsi %3, %2 : index
      scf.yield %4 : index
    }
    %5 = tape.alloc(%1) name "load_arg0" {tapeflow.ragged = affine_map<(d0, d1)[s0] -> (4, d0)>} : !tape.tape<4x?xf64>
    scf.for %arg2 = %c0 to %c4 step %c1 {
      scf.for %arg3 = %c0 to %arg2 step %c1 {
        %6 = memref.load %arg0[%arg2, %arg3] : memref<4x4xf64>
        tape.store %6, %5[%arg2, %arg3] id 0 : f64, !tape.tape<4x?xf64>
        %7 = arith.mulf %6, %6 : f64
        memref.store %7, %arg0[%arg2, %arg3] : memref<4x4xf64>
      }
    }
    scf.for %arg2_1 = %c0 to %c4 step %c1 {
      %8 = arith.subi %c3, %arg2_1 : index
      scf.for %arg3_1 = %c0 to %8 step %c1 {
        %9 = arith.subi %c2, %arg2_1 : index
        %10 = arith.subi %9, %arg3_1 : index
        %11 = tape.load %5[%8, %10] from 0 : !tape.tape<4x?xf64> -> f64
        %12 = memref.load %arg1[%8, %10] : memref<4x4xf64>
        memref.store %cst, %arg1[%8, %10] : memref<4x4xf64>
        %13 = arith.mulf %12, %11 fastmath<fast> : f64
        %14 = arith.addf %13, %13 fastmath<fast> : f64
        %15 = memref.load %arg1[%8, %10] : memref<4x4xf64>
        %16 = arith.addf %15, %14 fastmath<fast> : f64
        memref.store %16, %arg1[%8, %10] : memref<4x4xf64>
      }
    }
    tape.free %5 : !tape.tape<4x?xf64>
    func.return
  }
}

