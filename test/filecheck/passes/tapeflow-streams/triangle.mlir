// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-regions,tapeflow-layers{spad-bytes=64 stream=always},tapeflow-streams' %s | filecheck %s

// A triangular region's DRAM tape. Where the triangle's extents are functions of
// its outer indices alone (@gram: j >= i over constant bounds), its size is its
// entries: 10 pairs (i <= j < 4) of 8 iterations of two 8-byte values, 1280
// bytes, reserved at once. Where they depend on an argument (@gram_n: j from i to
// n), the size is known only at run time: a slab tape that grows as FWD pushes.

// CHECK-LABEL: func.func private @diffegram(
// CHECK:         stream.alloc bytes 1280 : !stream.tape
// CHECK-NOT:     stream.alloc slab
// CHECK-LABEL: func.func private @diffegram_n(
// CHECK:         stream.alloc slab 4096 : !stream.tape

func.func @gram(%x: memref<8x4xf64>, %c: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %i to %c4 step %c1 {
      %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %x[%k, %i] : memref<8x4xf64>
        %b = memref.load %x[%k, %j] : memref<8x4xf64>
        %p = arith.mulf %a, %b : f64
        %n = arith.addf %acc, %p : f64
        scf.yield %n : f64
      }
      memref.store %s, %c[%i, %j] : memref<4x4xf64>
    }
  }
  return
}

func.func @gram_grad(%x: memref<8x4xf64>, %dx: memref<8x4xf64>, %c: memref<4x4xf64>, %dc: memref<4x4xf64>) {
  enzyme.autodiff @gram(%x, %dx, %c, %dc) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<4x4xf64>, memref<4x4xf64>) -> ()
  return
}

func.func @gram_n(%x: memref<8x4xf64>, %c: memref<4x4xf64>, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %i to %m step %c1 {
      %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
        %a = memref.load %x[%k, %i] : memref<8x4xf64>
        %b = memref.load %x[%k, %j] : memref<8x4xf64>
        %p = arith.mulf %a, %b : f64
        %n = arith.addf %acc, %p : f64
        scf.yield %n : f64
      }
      memref.store %s, %c[%i, %j] : memref<4x4xf64>
    }
  }
  return
}

func.func @gram_n_grad(%x: memref<8x4xf64>, %dx: memref<8x4xf64>, %c: memref<4x4xf64>, %dc: memref<4x4xf64>, %m: index) {
  enzyme.autodiff @gram_n(%x, %dx, %c, %dc, %m) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<8x4xf64>, memref<8x4xf64>, memref<4x4xf64>, memref<4x4xf64>, index) -> ()
  return
}
