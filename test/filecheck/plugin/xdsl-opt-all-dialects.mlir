// Plain xdsl-opt (not tapeflow-opt) finds the TapeFlow dialects through the
// xdsl.universe entry point and round-trips a module that uses all six.
// RUN: xdsl-opt %s | filecheck %s
// RUN: xdsl-opt %s > %t.custom && xdsl-opt %s --print-op-generic | xdsl-opt > %t.generic && diff %t.custom %t.generic
// RUN: xdsl-opt %s | tapeflow-opt | diff %t.custom -

// CHECK: enzyme.autodiff @f
// CHECK: enzyme.push
// CHECK: tape.alloc name "v" : !tape.tape<8x4xf64>
// CHECK: region.load %{{.*}}[%{{.*}}] slot 0 from 0 : !region.region<8, [f64, index]> -> f64
// CHECK: stream.fwd
// CHECK: layer.layer 1 rev partner 0 -> f64
// CHECK: cgra.kernel 0 rows 4 cols 4 ii 1 -> f64
func.func @f(%x: memref<8xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<8xf64>
  func.return %v : f64
}
func.func @grad(%x: memref<8xf64>, %dx: memref<8xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<8xf64>, memref<8xf64>, f64) -> f64
  %cache = enzyme.init : !enzyme.Cache<f64>
  enzyme.push %cache, %seed : !enzyme.Cache<f64>, f64
  %p = enzyme.pop %cache : !enzyme.Cache<f64> -> f64
  %g = enzyme.init : !enzyme.Gradient<f64>
  enzyme.set %g, %p : !enzyme.Gradient<f64>, f64
  %gv = enzyme.get %g : !enzyme.Gradient<f64> -> f64
  func.return %gv : f64
}
func.func @tapes(%v: f64, %i: index) -> f64 {
  %t = tape.alloc name "v" : !tape.tape<8x4xf64>
  tape.store %v, %t[%i, %i] id 0 : f64, !tape.tape<8x4xf64>
  %l = tape.load %t[%i, %i] from 0 : !tape.tape<8x4xf64> -> f64
  tape.free %t : !tape.tape<8x4xf64>
  %r = region.alloc : !region.region<8, [f64, index]>
  region.store %v, %r[%i] slot 0 id 0 : f64, !region.region<8, [f64, index]>
  region.store %i, %r[%i] slot 1 id 1 : index, !region.region<8, [f64, index]>
  %a = region.load %r[%i] slot 0 from 0 : !region.region<8, [f64, index]> -> f64
  %s = region.alloc : !region.region<[f64]>
  region.store %v, %s[] slot 0 id 0 : f64, !region.region<[f64]>
  region.free %r : !region.region<8, [f64, index]>
  func.return %a : f64
}
func.func @layers(%v: f64, %i: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %tape = stream.alloc bytes 1024 : !stream.tape
  %r = region.alloc : !region.region<8, [f64]>
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    region.store %v, %r[%i] slot 0 id 0 : f64, !region.region<8, [f64]>
    stream.store %v, %tile[%c0] slot 1 id 0 : f64, !layer.spad<4x2>
    stream.fwd %tile rows %c4 to %tape id 0 : !layer.spad<4x2>
    layer.barrier
  }
  %out = layer.layer 1 rev partner 0 -> f64 {
    %tile = layer.salloc base 0 capacity 512 : !layer.spad<4x2>
    stream.rev %tape rows %c4 to %tile of 0 : !layer.spad<4x2>
    %w = stream.load %tile[%c0] slot 1 from 0 : !layer.spad<4x2> -> f64
    layer.barrier %w : f64
  }
  func.return %out : f64
}
func.func @kernels(%x: memref<8xf64>, %i: index) -> f64 {
  %k = cgra.kernel 0 rows 4 cols 4 ii 1 -> f64 {
    %a = cgra.load %x[%i] cache at 0, 0 cycle 0 : memref<8xf64> -> f64
    %b = cgra.op "arith.mulf"(%a, %a) at 0, 1 cycle 3 : (f64, f64) -> f64
    cgra.store %b, %x[%i] cache at 0, 2 cycle 7 : f64, memref<8xf64>
    cgra.barrier
    cgra.yield %b : f64
  }
  func.return %k : f64
}
