// The tape stage of run_time_shapes/fptosi.mlir's gradient (tapeflow-raise-tape's
// output): a trip count computed from data, cached on the tape for REV. The
// adversarial tests edit it (test_run_time_adversarial.py).
builtin.module {
  func.func @fptosi(%arg0: memref<4xf64>, %arg1: memref<4xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %cst = arith.constant 3.000000e+00 : f64
    %cst_1 = arith.constant 1.000000e-01 : f64
    scf.for %arg2 = %c0 to %c4 step %c1 {
      %0 = memref.load %arg0[%arg2] : memref<4xf64>
      %1 = math.absf %0 : f64
      %2 = arith.mulf %1, %cst : f64
      %3 = arith.fptosi %2 : f64 to i64
      %4 = arith.index_cast %3 : i64 to index
      %5 = arith.addi %4, %c1 : index
      %6 = scf.for %arg3 = %c0 to %5 step %c1 iter_args(%arg4 = %0) -> (f64) {
        %7 = math.tanh %arg4 : f64
        %8 = arith.mulf %7, %cst_1 : f64
        %9 = arith.addf %arg4, %8 : f64
        scf.yield %9 : f64
      }
      memref.store %6, %arg1[%arg2] : memref<4xf64>
    }
    func.return
  }
  func.func @fptosi_grad(%arg0: memref<4xf64>, %arg1: memref<4xf64>, %arg2: memref<4xf64>, %arg3: memref<4xf64>) {
    func.call @diffefptosi(%arg0, %arg1, %arg2, %arg3) : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
    func.return
  }
  func.func private @diffefptosi(%arg0: memref<4xf64>, %arg1: memref<4xf64>, %arg2: memref<4xf64>, %arg3: memref<4xf64>) attributes {tapeflow.gradient_of = @fptosi, tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], tapeflow.ret_activity = []} {
    %c3 = arith.constant 3 : index
    %cst = arith.constant 1.000000e+00 : f64
    %cst_1 = arith.constant 1.000000e-01 : f64
    %cst_2 = arith.constant 3.000000e+00 : f64
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst_3 = arith.constant 0.000000e+00 : f64
    %0 = tape.alloc name "addi" : !tape.tape<4xindex>
    %1 = arith.constant 0 : index
    %2 = scf.for %3 = %c0 to %c4 step %c1 iter_args(%4 = %1) -> (index) {
      %5 = memref.load %arg0[%3] : memref<4xf64>
      %6 = math.absf %5 : f64
      %7 = arith.mulf %6, %cst_2 : f64
      %8 = arith.fptosi %7 : f64 to i64
      %9 = arith.index_cast %8 : i64 to index
      %10 = arith.addi %9, %c1 : index
      %11 = arith.constant 0 : index
      %12 = arith.maxsi %10, %11 : index
      %13 = arith.maxsi %4, %12 : index
      scf.yield %13 : index
    }
    %14 = tape.alloc(%2) name "iter_arg" : !tape.tape<4x?xf64>
    scf.for %arg4 = %c0 to %c4 step %c1 {
      %15 = memref.load %arg0[%arg4] : memref<4xf64>
      %16 = math.absf %15 : f64
      %17 = arith.mulf %16, %cst_2 : f64
      %18 = arith.fptosi %17 : f64 to i64
      %19 = arith.index_cast %18 : i64 to index
      %20 = arith.addi %19, %c1 : index
      tape.store %20, %0[%arg4] id 0 : index, !tape.tape<4xindex>
      %21 = arith.constant 0 : index
      %22 = arith.maxsi %20, %21 : index
      %23 = scf.for %arg5 = %c0 to %20 step %c1 iter_args(%arg6 = %15) -> (f64) {
        tape.store %arg6, %14[%arg4, %arg5] id 1 : f64, !tape.tape<4x?xf64>
        %24 = math.tanh %arg6 : f64
        %25 = arith.mulf %24, %cst_1 : f64
        %26 = arith.addf %arg6, %25 : f64
        scf.yield %26 : f64
      }
      memref.store %23, %arg2[%arg4] : memref<4xf64>
    }
    scf.for %arg4_1 = %c0 to %c4 step %c1 {
      %27 = arith.subi %c3, %arg4_1 : index
      %28 = tape.load %0[%27] from 0 : !tape.tape<4xindex> -> index
      %29 = memref.load %arg3[%27] : memref<4xf64>
      memref.store %cst_3, %arg3[%27] : memref<4xf64>
      %30 = scf.for %arg5_1 = %c0 to %28 step %c1 iter_args(%arg6_1 = %29) -> (f64) {
        %31 = arith.subi %28, %c1 : index
        %32 = arith.subi %31, %arg5_1 : index
        %33 = tape.load %14[%27, %32] from 1 : !tape.tape<4x?xf64> -> f64
        %34 = arith.mulf %arg6_1, %cst_1 fastmath<fast> : f64
        %35 = math.tanh %33 fastmath<fast> : f64
        %36 = arith.mulf %35, %35 fastmath<fast> : f64
        %37 = arith.subf %cst, %36 fastmath<fast> : f64
        %38 = arith.mulf %34, %37 fastmath<fast> : f64
        %39 = arith.addf %arg6_1, %38 fastmath<fast> : f64
        scf.yield %39 : f64
      }
      %40 = memref.load %arg1[%27] : memref<4xf64>
      %41 = arith.addf %40, %30 fastmath<fast> : f64
      memref.store %41, %arg1[%27] : memref<4xf64>
    }
    tape.free %0 : !tape.tape<4xindex>
    tape.free %14 : !tape.tape<4x?xf64>
    func.return
  }
}
