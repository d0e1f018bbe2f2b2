// From a review: a tape the layers cannot stream back as a stack (see layers.mlir).
func.func private @diffef(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) attributes {tapeflow.gradient_of = @f, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %a = tape.alloc name "w" : !tape.tape<8xf64>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    scf.if %p {
      %w = arith.mulf %v, %v : f64
      tape.store %w, %a[%i] id 0 : f64, !tape.tape<8xf64>
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.subi %c7, %i : index
    %v = memref.load %x[%r] : memref<8xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    scf.if %p {
      %w = tape.load %a[%r] from 0 : !tape.tape<8xf64> -> f64
      %h = arith.mulf %w, %seed : f64
      memref.store %h, %dx[%r] : memref<8xf64>
    }
  }
  tape.free %a : !tape.tape<8xf64>
  func.return
}
