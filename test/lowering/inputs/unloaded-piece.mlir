// One tape, two values per iteration; REV reads only the first (found in review).
func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = tape.alloc name "t" : !tape.tape<4x2xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %w = arith.mulf %v, %v : f64
    tape.store %v, %t[%i, %c0] id 0 : f64, !tape.tape<4x2xf64>
    tape.store %w, %t[%i, %c1] id 1 : f64, !tape.tape<4x2xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.subi %c3, %i : index
    %v = tape.load %t[%r, %c0] from 0 : !tape.tape<4x2xf64> -> f64
    %h = arith.mulf %v, %seed : f64
    memref.store %h, %dx[%r] : memref<4xf64>
  }
  tape.free %t : !tape.tape<4x2xf64>
  func.return
}
