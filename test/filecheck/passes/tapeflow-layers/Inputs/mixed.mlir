// Region-stage gradient: %m (an f64 and an i1 per iteration) mirrors its FWD loop;
// %k is written 3x8 and read 3x10 through arith.remsi (a loop-invariant cache,
// as Enzyme-MLIR makes them), so REV does not mirror FWD.
func.func private @diffef(%x: memref<3x8xf64>, %dx: memref<3x8xf64>, %y: memref<3x10xf64>) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], tapeflow.ret_activity = []} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f64
  %m = region.alloc : !region.region<3x8, [f64, i1]>
  %k = region.alloc : !region.region<3x8, [f64]>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<3x8xf64>
      %p = arith.cmpf ogt, %a, %zero : f64
      region.store %a, %m[%i, %j] slot 0 id 0 : f64, !region.region<3x8, [f64, i1]>
      region.store %p, %m[%i, %j] slot 1 id 1 : i1, !region.region<3x8, [f64, i1]>
      %s = math.sin %a : f64
      region.store %s, %k[%i, %j] slot 0 id 0 : f64, !region.region<3x8, [f64]>
    }
  }
  scf.for %ri = %c0 to %c3 step %c1 {
    %i = arith.subi %c2, %ri : index
    scf.for %rk = %c0 to %c10 step %c1 {
      %kk = arith.subi %c9, %rk : index
      %r = arith.remsi %kk, %c8 : index
      %s = region.load %k[%i, %r] slot 0 from 0 : !region.region<3x8, [f64]> -> f64
      %yv = memref.load %y[%i, %kk] : memref<3x10xf64>
      %t = arith.mulf %s, %yv : f64
      memref.store %t, %y[%i, %kk] : memref<3x10xf64>
    }
    scf.for %rj = %c0 to %c8 step %c1 {
      %j = arith.subi %c7, %rj : index
      %a = region.load %m[%i, %j] slot 0 from 0 : !region.region<3x8, [f64, i1]> -> f64
      %p = region.load %m[%i, %j] slot 1 from 1 : !region.region<3x8, [f64, i1]> -> i1
      %g = arith.select %p, %a, %zero : f64
      memref.store %g, %dx[%i, %j] : memref<3x8xf64>
    }
  }
  region.free %k : !region.region<3x8, [f64]>
  region.free %m : !region.region<3x8, [f64, i1]>
  func.return
}
