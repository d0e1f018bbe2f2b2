// A gradient whose REV loop does not mirror its FWD loop: a loop-invariant cache
// written 3x8 and read 3x10 through `arith.remsi`.
// Kind: the shape Enzyme-MLIR gives a value cached where it is defined and read
// where it is used (its loop-invariant caches, read through remsi), on a primal of
// the PolyBench kind (a row of temporaries t[j] = sin(x[i][j]) reused cyclically
// by a longer sweep y[i][k] *= t[k mod 8]). Written by hand at the Enzyme-gradient
// stage, in the form `tapeflow-enzyme` leaves (memref caches, activities on the
// gradient function); its gradient is checked against central differences of @f.
func.func @f(%x: memref<3x8xf64>, %y: memref<3x10xf64>) {
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
      memref.store %m, %y[%i, %k] : memref<3x10xf64>
    }
  }
  return
}

func.func @f_grad(%x: memref<3x8xf64>, %dx: memref<3x8xf64>, %y: memref<3x10xf64>, %dy: memref<3x10xf64>) {
  func.call @diffef(%x, %dx, %y, %dy) : (memref<3x8xf64>, memref<3x8xf64>, memref<3x10xf64>, memref<3x10xf64>) -> ()
  return
}

func.func private @diffef(%x: memref<3x8xf64>, %dx: memref<3x8xf64>, %y: memref<3x10xf64>, %dy: memref<3x10xf64>) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], tapeflow.ret_activity = []} {
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
  %cache_x = memref.alloc() : memref<3x8xf64>
  %cache_t = memref.alloc() : memref<3x8xf64>
  %cache_y = memref.alloc() : memref<3x10xf64>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<3x8xf64>
      memref.store %a, %cache_x[%i, %j] : memref<3x8xf64>
      %s = math.sin %a : f64
      memref.store %s, %cache_t[%i, %j] : memref<3x8xf64>
      memref.store %s, %t[%j] : memref<8xf64>
    }
    scf.for %k = %c0 to %c10 step %c1 {
      %r = arith.remsi %k, %c8 : index
      %b = memref.load %t[%r] : memref<8xf64>
      %c = memref.load %y[%i, %k] : memref<3x10xf64>
      memref.store %c, %cache_y[%i, %k] : memref<3x10xf64>
      %m = arith.mulf %b, %c : f64
      memref.store %m, %y[%i, %k] : memref<3x10xf64>
    }
  }
  scf.for %ri = %c0 to %c3 step %c1 {
    %i = arith.subi %c2, %ri : index
    scf.for %rk = %c0 to %c10 step %c1 {
      %k = arith.subi %c9, %rk : index
      %r = arith.remsi %k, %c8 : index
      %b = memref.load %cache_t[%i, %r] : memref<3x8xf64>
      %c = memref.load %cache_y[%i, %k] : memref<3x10xf64>
      %g = memref.load %dy[%i, %k] : memref<3x10xf64>
      %gb = arith.mulf %g, %c : f64
      %gc = arith.mulf %g, %b : f64
      memref.store %gc, %dy[%i, %k] : memref<3x10xf64>
      %old = memref.load %dt[%r] : memref<8xf64>
      %new = arith.addf %old, %gb : f64
      memref.store %new, %dt[%r] : memref<8xf64>
    }
    scf.for %rj = %c0 to %c8 step %c1 {
      %j = arith.subi %c7, %rj : index
      %a = memref.load %cache_x[%i, %j] : memref<3x8xf64>
      %gs = memref.load %dt[%j] : memref<8xf64>
      memref.store %zero, %dt[%j] : memref<8xf64>
      %cs = math.cos %a : f64
      %ga = arith.mulf %gs, %cs : f64
      %old = memref.load %dx[%i, %j] : memref<3x8xf64>
      %new = arith.addf %old, %ga : f64
      memref.store %new, %dx[%i, %j] : memref<3x8xf64>
    }
  }
  memref.dealloc %cache_y : memref<3x10xf64>
  memref.dealloc %cache_t : memref<3x8xf64>
  memref.dealloc %cache_x : memref<3x8xf64>
  memref.dealloc %dt : memref<8xf64>
  memref.dealloc %t : memref<8xf64>
  return
}
