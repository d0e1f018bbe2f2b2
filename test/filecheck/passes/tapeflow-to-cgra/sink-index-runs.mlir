// RUN: tapeflow-opt -p 'tapeflow-to-cgra{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats

// A run of integer ops outside innermost loops whose results only later kernels
// use (a tile iteration's first rows) is cloned into those kernels, and the run
// is erased, when their schedules keep their ii and grow by no more than the run's
// own kernel (run once per iteration of the loop around it) takes.

// @sunk: the row is computed in the inner loop's kernel and in the kernel of the
// store after it; no kernel runs before the inner loop.
// CHECK-LABEL: func.func private @sunk
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
// CHECK-NEXT:        cgra.kernel 0 rows 4 cols 4 ii {{[0-9]+}} -> f64 {
// CHECK-NEXT:          %[[B:[^ ]+]] = cgra.op "arith.muli"(%i, %c5)
// CHECK-NEXT:          %[[R:[^ ]+]] = cgra.op "arith.addi"(%[[B]], %c1)
// CHECK:               cgra.op "arith.addi"(%[[R]], %k)
// CHECK:             cgra.kernel 1 rows 4 cols 4 ii {{[0-9]+}} {
// CHECK-NEXT:          %[[B1:[^ ]+]] = cgra.op "arith.muli"(%i, %c5)
// CHECK-NEXT:          %[[R1:[^ ]+]] = cgra.op "arith.addi"(%[[B1]], %c1)
// CHECK-NEXT:          %[[L:[^ ]+]] = cgra.op "arith.addi"(%[[R1]], %c4)
// CHECK-NEXT:          cgra.store %s, %t[%[[L]]] cache

// @bound: the run's result is the inner loop's bound: it stays a kernel.
// CHECK-LABEL: func.func private @bound
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %end = cgra.kernel 1 rows 4 cols 4 ii 2 -> index {
// CHECK:           scf.for %k = %c0 to %end step %c1 {

// @full: the inner loop's 16 ops fill the 16 PEs at ii 1; two more would need
// ii 2, so the run stays a kernel of its own.
// CHECK-LABEL: func.func private @full
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %row = cgra.kernel 1 rows 4 cols 4 ii 2 -> index {
// CHECK:           scf.for %k = %c0 to %c4 step %c1 {
// CHECK-NEXT:        cgra.kernel 0 rows 4 cols 4 ii 1 {

// @yields: a loop whose body only yields the run's result: the run moves to the
// head of the loop's body, before its yield, and the loop becomes a kernel.
// CHECK-LABEL: func.func private @yields
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
// CHECK-NEXT:        %[[Y:[^ ]+]] = cgra.kernel 0 rows 4 cols 4 ii 1 -> index {
// CHECK-NEXT:          %a = cgra.op "arith.muli"(%i, %c5)
// CHECK-NEXT:          cgra.yield %a : index
// CHECK:             scf.yield %[[Y]] : index

// @chained: the run %a moves into the run %r after the first loop (its only user),
// and that run, as it then is, moves into the second loop's kernel: no
// straight-line kernel is left.
// CHECK-LABEL: func.func private @chained
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      scf.for %k = %c0 to %c4 step %c1 {
// CHECK-NEXT:        cgra.kernel 0 rows 4 cols 4 ii 1 {
// CHECK:           scf.for %k_1 = %c0 to %c4 step %c1 {
// CHECK-NEXT:        cgra.kernel 1 rows 4 cols 4 ii 1 {
// CHECK-NEXT:          %a = cgra.op "arith.muli"(%i, %c5)
// CHECK-NEXT:          %r = cgra.op "arith.addi"(%a, %c1)
// CHECK:               cgra.store %v_1, %t[%r] cache

// STATS: tapeflow-to-cgra: @sunk: 1 kernels (ii 5), 1 straight-line kernels, 0 loops left unmapped
// STATS: tapeflow-to-cgra: @bound: 1 kernels (ii 1), 1 straight-line kernels, 0 loops left unmapped
// STATS: tapeflow-to-cgra: @full: 1 kernels (ii 1), 1 straight-line kernels, 0 loops left unmapped
// STATS: tapeflow-to-cgra: @yields: 1 kernels (ii 1), 1 straight-line kernels, 0 loops left unmapped
// STATS: tapeflow-to-cgra: @chained: 2 kernels (ii 1, 1), 0 loops left unmapped

func.func @f(%x: memref<8x4xf64>) {
  return
}

func.func private @sunk(%x: memref<8x4xf64>, %t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %base = arith.muli %i, %c5 : index
    %row = arith.addi %base, %c1 : index
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %x[%i, %k] : memref<8x4xf64>
      %r = arith.addi %row, %k : index
      memref.store %v, %t[%r] : memref<64xf64>
      %next = arith.addf %acc, %v : f64
      scf.yield %next : f64
    }
    %last = arith.addi %row, %c4 : index
    memref.store %s, %t[%last] : memref<64xf64>
  }
  return
}

func.func private @bound(%x: memref<8x4xf64>, %t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %half = arith.shrui %i, %c1 : index
    %end = arith.addi %half, %c1 : index
    scf.for %k = %c0 to %end step %c1 {
      %v = memref.load %x[%i, %k] : memref<8x4xf64>
      %r = arith.addi %end, %k : index
      memref.store %v, %t[%r] : memref<64xf64>
    }
  }
  return
}

func.func private @full(%x: memref<8x4xf64>, %t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %base = arith.muli %i, %c5 : index
    %row = arith.addi %base, %c1 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %k] : memref<8x4xf64>
      %m0 = arith.mulf %v, %v : f64
      %m1 = arith.mulf %m0, %v : f64
      %m2 = arith.mulf %m1, %v : f64
      %m3 = arith.mulf %m2, %v : f64
      %m4 = arith.mulf %m3, %v : f64
      %m5 = arith.mulf %m4, %v : f64
      %m6 = arith.mulf %m5, %v : f64
      %m7 = arith.mulf %m6, %v : f64
      %m8 = arith.mulf %m7, %v : f64
      %m9 = arith.mulf %m8, %v : f64
      %m10 = arith.mulf %m9, %v : f64
      %m11 = arith.mulf %m10, %v : f64
      %m12 = arith.mulf %m11, %v : f64
      %r = arith.addi %row, %k : index
      memref.store %m12, %t[%r] : memref<64xf64>
    }
  }
  return
}

func.func private @yields(%x: memref<8xf64>, %t: memref<64xindex>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %a = arith.muli %i, %c5 : index
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
      scf.yield %a : index
    }
    memref.store %s, %t[%i] : memref<64xindex>
  }
  return
}

func.func private @chained(%x: memref<8x4xf64>, %t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %a = arith.muli %i, %c5 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %k] : memref<8x4xf64>
      memref.store %v, %t[%k] : memref<64xf64>
    }
    %r = arith.addi %a, %c1 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %k] : memref<8x4xf64>
      memref.store %v, %t[%r] : memref<64xf64>
    }
  }
  return
}
