// Tapes stored under a branch get a region of their own branch: a region's stores
// in one iteration then sit in one block, and its tiles are pushed and popped
// under one condition (Pass 2's conditional pieces). Tapes of one loop body and
// one branch share a region, slots in REV reading order, whatever their type.
// RUN: tapeflow-opt -p 'tapeflow-regions{stats=true}' %s 2>&1 | filecheck %s

// CHECK:      tapeflow-regions: @diffef: 5 tapes -> 3 regions
// CHECK-NEXT:   region !region.region<8, [f64, i1]>: v, p
// CHECK-NEXT:   region !region.region<8, [f64, i32]>: w, k
// CHECK-NEXT:   region !region.region<8, [f32]>: e
// CHECK:      scf.if
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   region.store %{{.*}} slot 0 id 0 : f64, !region.region<8, [f64, i32]>
// CHECK-NEXT:   region.store %{{.*}} slot 1 id 1 : i32, !region.region<8, [f64, i32]>
// CHECK-NEXT: } else {
// CHECK-NEXT:   arith.truncf
// CHECK-NEXT:   region.store %{{.*}} slot 0 id 0 : f32, !region.region<8, [f32]>

func.func private @diffef(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %k7 = arith.constant 7 : i32
  %tv = tape.alloc name "v" : !tape.tape<8xf64>
  %tp = tape.alloc name "p" : !tape.tape<8xi1>
  %tw = tape.alloc name "w" : !tape.tape<8xf64>
  %tk = tape.alloc name "k" : !tape.tape<8xi32>
  %te = tape.alloc name "e" : !tape.tape<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    tape.store %v, %tv[%i] id 0 : f64, !tape.tape<8xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    tape.store %p, %tp[%i] id 1 : i1, !tape.tape<8xi1>
    scf.if %p {
      %w = arith.mulf %v, %v : f64
      tape.store %w, %tw[%i] id 2 : f64, !tape.tape<8xf64>
      tape.store %k7, %tk[%i] id 3 : i32, !tape.tape<8xi32>
    } else {
      %e = arith.truncf %v : f64 to f32
      tape.store %e, %te[%i] id 4 : f32, !tape.tape<8xf32>
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.subi %c7, %i : index
    %v = tape.load %tv[%r] from 0 : !tape.tape<8xf64> -> f64
    %p = tape.load %tp[%r] from 1 : !tape.tape<8xi1> -> i1
    %g = scf.if %p -> (f64) {
      %w = tape.load %tw[%r] from 2 : !tape.tape<8xf64> -> f64
      %k = tape.load %tk[%r] from 3 : !tape.tape<8xi32> -> i32
      %kf = arith.sitofp %k : i32 to f64
      %m = arith.mulf %w, %kf : f64
      scf.yield %m : f64
    } else {
      %e = tape.load %te[%r] from 4 : !tape.tape<8xf32> -> f32
      %ef = arith.extf %e : f32 to f64
      scf.yield %ef : f64
    }
    %h = arith.mulf %g, %v : f64
    memref.store %h, %dx[%r] : memref<8xf64>
  }
  tape.free %te : !tape.tape<8xf32>
  tape.free %tk : !tape.tape<8xi32>
  tape.free %tw : !tape.tape<8xf64>
  tape.free %tp : !tape.tape<8xi1>
  tape.free %tv : !tape.tape<8xf64>
  func.return
}
