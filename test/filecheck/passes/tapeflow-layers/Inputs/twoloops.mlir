// From a review: a tape the layers cannot stream back as a stack (see layers.mlir).
func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tape.alloc name "t" : !tape.tape<2x4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    tape.store %v, %a[%c0, %i] id 0 : f64, !tape.tape<2x4xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %w = arith.mulf %v, %v : f64
    tape.store %w, %a[%c1, %i] id 1 : f64, !tape.tape<2x4xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %i : index
    %v = tape.load %a[%c0, %r] from 0 : !tape.tape<2x4xf64> -> f64
    memref.store %v, %dx[%r] : memref<4xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %i : index
    %v = tape.load %a[%c1, %r] from 1 : !tape.tape<2x4xf64> -> f64
    %o = memref.load %dx[%r] : memref<4xf64>
    %n = arith.mulf %o, %v : f64
    memref.store %n, %dx[%r] : memref<4xf64>
  }
  tape.free %a : !tape.tape<2x4xf64>
  func.return
}
