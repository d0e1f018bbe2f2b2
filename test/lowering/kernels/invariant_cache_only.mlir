// A gradient whose only cache is loop-invariant and read through `arith.remsi`
// (written 3x8, read 3x10): tapeflow-layers keeps every region, and the later
// passes, placement and the simulator must take a function with no layer at all.
// Kind: as invariant_cache_remsi.mlir (Enzyme-MLIR's
// loop-invariant caches), with the output in a separate buffer so x and y are
// never overwritten and need no cache. Written by hand at the Enzyme-gradient
// stage, in the form `tapeflow-enzyme` leaves; checked against central differences.
func.func @f(%x: memref<3x8xf64>, %y: memref<3x10xf64>, %z: memref<3x10xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %t = memref.alloc() : memref<8xf64>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<3x8xf64>
      %s = math.sin %a : f64
      memref.store %s, %t[%j] : memref<8xf64>
    }
    scf.for %k = %c0 to %c10 step %c1 {
      %r = arith.remsi %k, %c8 : index
      %b = memref.load %t[%r] : memref<8xf64>
      %c = memref.load %y[%i, %k] : memref<3x10xf64>
      %m = arith.mulf %b, %c : f64
      %o = memref.load %z[%i, %k] : memref<3x10xf64>
      %n = arith.addf %o, %m : f64
      memref.store %n, %z[%i, %k] : memref<3x10xf64>
    }
  }
  return
}

func.func @f_grad(%x: memref<3x8xf64>, %dx: memref<3x8xf64>, %y: memref<3x10xf64>, %dy: memref<3x10xf64>, %z: memref<3x10xf64>, %dz: memref<3x10xf64>) {
  func.call @diffef(%x, %dx, %y, %dy, %z, %dz) : (memref<3x8xf64>, memref<3x8xf64>, memref<3x10xf64>, memref<3x10xf64>, memref<3x10xf64>, memref<3x10xf64>) -> ()
  return
}

func.func private @diffef(%x: memref<3x8xf64>, %dx: memref<3x8xf64>, %y: memref<3x10xf64>, %dy: memref<3x10xf64>, %z: memref<3x10xf64>, %dz: memref<3x10xf64>) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], tapeflow.ret_activity = []} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.000000e+00 : f64
  %t = memref.alloc() : memref<8xf64>
  %dt = memref.alloc() : memref<8xf64>
  enzyme.fill_zero %dt : memref<8xf64>
  %cache_t = memref.alloc() : memref<3x8xf64>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<3x8xf64>
      %s = math.sin %a : f64
      memref.store %s, %cache_t[%i, %j] : memref<3x8xf64>
      memref.store %s, %t[%j] : memref<8xf64>
    }
    scf.for %k = %c0 to %c10 step %c1 {
      %r = arith.remsi %k, %c8 : index
      %b = memref.load %t[%r] : memref<8xf64>
      %c = memref.load %y[%i, %k] : memref<3x10xf64>
      %m = arith.mulf %b, %c : f64
      %o = memref.load %z[%i, %k] : memref<3x10xf64>
      %n = arith.addf %o, %m : f64
      memref.store %n, %z[%i, %k] : memref<3x10xf64>
    }
  }
  scf.for %ri = %c0 to %c3 step %c1 {
    %i = arith.subi %c2, %ri : index
    scf.for %rk = %c0 to %c10 step %c1 {
      %k = arith.subi %c9, %rk : index
      %r = arith.remsi %k, %c8 : index
      %b = memref.load %cache_t[%i, %r] : memref<3x8xf64>
      %c = memref.load %y[%i, %k] : memref<3x10xf64>
      %g = memref.load %dz[%i, %k] : memref<3x10xf64>
      %gb = arith.mulf %g, %c : f64
      %gc = arith.mulf %g, %b : f64
      %oy = memref.load %dy[%i, %k] : memref<3x10xf64>
      %ny = arith.addf %oy, %gc : f64
      memref.store %ny, %dy[%i, %k] : memref<3x10xf64>
      %old = memref.load %dt[%r] : memref<8xf64>
      %new = arith.addf %old, %gb : f64
      memref.store %new, %dt[%r] : memref<8xf64>
    }
    scf.for %rj = %c0 to %c8 step %c1 {
      %j = arith.subi %c7, %rj : index
      %a = memref.load %x[%i, %j] : memref<3x8xf64>
      %gs = memref.load %dt[%j] : memref<8xf64>
      memref.store %zero, %dt[%j] : memref<8xf64>
      %cs = math.cos %a : f64
      %ga = arith.mulf %gs, %cs : f64
      %old = memref.load %dx[%i, %j] : memref<3x8xf64>
      %new = arith.addf %old, %ga : f64
      memref.store %new, %dx[%i, %j] : memref<3x8xf64>
    }
  }
  memref.dealloc %cache_t : memref<3x8xf64>
  memref.dealloc %dt : memref<8xf64>
  memref.dealloc %t : memref<8xf64>
  return
}
