// copy_scale.mlir (frontend_kernels/) after tapeflow-enzyme,tapeflow-pipeline: lowering it again is refused, naming the stage it is at.
// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-pipeline' {file} -o {copy}
// ERROR: tapeflow-pipeline: @diffescale_sum is at the scratchpad-bound stage
builtin.module {
  func.func @scale_sum(%arg0: memref<8xf64>) -> f64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %cst = arith.constant 5.000000e-01 : f64
    %cst_1 = arith.constant 0.000000e+00 : f64
    %0 = scf.for %arg1 = %c0 to %c8 step %c1 iter_args(%arg2 = %cst_1) -> (f64) {
      %1 = memref.load %arg0[%arg1] : memref<8xf64>
      %2 = arith.mulf %1, %cst : f64
      memref.store %2, %arg0[%arg1] : memref<8xf64>
      %3 = math.exp %2 : f64
      %4 = arith.mulf %3, %1 : f64
      %5 = arith.addf %arg2, %4 : f64
      scf.yield %5 : f64
    }
    func.return %0 : f64
  }
  func.func @scale_sum_grad(%arg0: memref<8xf64>, %arg1: memref<8xf64>) -> f64 {
    %cst = arith.constant 1.000000e+00 : f64
    %alloc = memref.alloc() : memref<8xf64>
    memref.copy %arg0, %alloc : memref<8xf64> to memref<8xf64>
    %0 = func.call @diffescale_sum(%alloc, %arg1, %cst) : (memref<8xf64>, memref<8xf64>, f64) -> f64
    memref.dealloc %alloc : memref<8xf64>
    func.return %0 : f64
  }
  func.func private @diffescale_sum(%arg0: memref<8xf64>, %arg1: memref<8xf64>, %arg2: f64) -> f64 attributes {tapeflow.gradient_of = @scale_sum, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
    %c7 = arith.constant 7 : index
    %cst = arith.constant 5.000000e-01 : f64
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst_1 = arith.constant 0.000000e+00 : f64
    %0 = stream.alloc bytes 64 : !stream.tape
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %3 = arith.constant 1 : index
    %4 = scf.for %5 = %1 to %3 step %2 iter_args(%6 = %cst_1) -> (f64) {
      %7 = layer.layer 0 fwd partner 1 -> f64 {
        %8 = layer.salloc base 0 capacity 64 : !layer.spad<8x1>
        %9 = arith.constant 8 : index
        %10 = arith.muli %5, %9 : index
        %11 = arith.constant 8 : index
        %12 = arith.addi %10, %11 : index
        %13 = arith.constant 8 : index
        %14 = arith.minsi %12, %13 : index
        %15 = scf.for %arg3 = %10 to %14 step %c1 iter_args(%arg4 = %6) -> (f64) {
          %16 = arith.subi %arg3, %10 : index
          %17 = memref.load %arg0[%arg3] : memref<8xf64>
          stream.store %17, %8[%16] slot 0 id 0 : f64, !layer.spad<8x1>
          %18 = arith.mulf %17, %cst : f64
          memref.store %18, %arg0[%arg3] : memref<8xf64>
          %19 = math.exp %18 : f64
          %20 = arith.mulf %19, %17 : f64
          %21 = arith.addf %arg4, %20 : f64
          scf.yield %21 : f64
        } {tapeflow.rows_per_iteration = 1 : i64}
        %22 = arith.subi %14, %10 : index
        stream.fwd %8 rows %22 to %0 id 0 : !layer.spad<8x1>
        layer.barrier %15 : f64
      }
      scf.yield %7 : f64
    }
    %23 = arith.constant 0 : index
    %24 = arith.constant 1 : index
    %25 = arith.constant 1 : index
    scf.for %26 = %23 to %25 step %24 {
      layer.layer 1 rev partner 0 {
        %27 = layer.salloc base 0 capacity 64 : !layer.spad<8x1>
        %28 = arith.constant 0 : index
        %29 = arith.subi %28, %26 : index
        %30 = arith.constant 1 : index
        %31 = arith.addi %29, %30 : index
        %32 = arith.constant 8 : index
        %33 = arith.muli %31, %32 : index
        %34 = arith.constant 8 : index
        %35 = arith.subi %34, %33 : index
        %36 = arith.constant 0 : index
        %37 = arith.maxsi %35, %36 : index
        %38 = arith.constant 8 : index
        %39 = arith.muli %29, %38 : index
        %40 = arith.constant 8 : index
        %41 = arith.subi %40, %39 : index
        %42 = arith.subi %41, %37 : index
        stream.rev %0 rows %42 to %27 of 0 : !layer.spad<8x1>
        scf.for %arg3_1 = %37 to %41 step %c1 {
          %43 = arith.subi %arg3_1, %37 : index
          %44 = arith.subi %41, %37 : index
          %45 = arith.constant 1 : index
          %46 = arith.subi %44, %45 : index
          %47 = arith.subi %46, %43 : index
          %48 = arith.subi %c7, %arg3_1 : index
          %49 = stream.load %27[%47] slot 0 from 0 : !layer.spad<8x1> -> f64
          %50 = arith.mulf %49, %cst : f64
          %51 = math.exp %50 : f64
          %52 = arith.mulf %arg2, %49 fastmath<fast> : f64
          %53 = arith.mulf %arg2, %51 fastmath<fast> : f64
          %54 = math.exp %50 fastmath<fast> : f64
          %55 = arith.mulf %52, %54 fastmath<fast> : f64
          %56 = memref.load %arg1[%48] : memref<8xf64>
          %57 = arith.addf %55, %56 fastmath<fast> : f64
          memref.store %cst_1, %arg1[%48] : memref<8xf64>
          %58 = arith.mulf %57, %cst fastmath<fast> : f64
          %59 = arith.addf %53, %58 fastmath<fast> : f64
          %60 = memref.load %arg1[%48] : memref<8xf64>
          %61 = arith.addf %60, %59 fastmath<fast> : f64
          memref.store %61, %arg1[%48] : memref<8xf64>
        } {tapeflow.rows_per_iteration = 1 : i64}
        layer.barrier
      }
    }
    func.return %4 : f64
  }
}

