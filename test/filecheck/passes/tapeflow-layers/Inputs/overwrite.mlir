// From a review: a tape the layers cannot stream back as a stack (see layers.mlir).
func.func private @diffef(%x: memref<4x2xf64>, %dx: memref<4x2xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = tape.alloc name "t" : !tape.tape<8xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x2xf64>
      tape.store %v, %t[%i] id 0 : f64, !tape.tape<8xf64>
    }
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %i : index
    scf.for %j = %c0 to %c2 step %c1 {
      %s = arith.subi %c1, %j : index
      %w = tape.load %t[%r] from 0 : !tape.tape<8xf64> -> f64
      %h = arith.mulf %w, %seed : f64
      memref.store %h, %dx[%r, %s] : memref<4x2xf64>
    }
  }
  tape.free %t : !tape.tape<8xf64>
  func.return
}
