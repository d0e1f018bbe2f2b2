// Ragged extents that do not describe a ragged space: the first extent depends
// on the second index.
func.func private @diffef(%x: memref<4xf64>, %dx: memref<4xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = tape.alloc {tapeflow.ragged = affine_map<(d0, d1) -> (d1, 4)>} : !tape.tape<4x4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    tape.store %v, %t[%i, %i] id 0 : f64, !tape.tape<4x4xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = tape.load %t[%i, %i] from 0 : !tape.tape<4x4xf64> -> f64
    memref.store %v, %dx[%i] : memref<4xf64>
  }
  tape.free %t : !tape.tape<4x4xf64>
  return
}
func.func @f(%x: memref<4xf64>) {
  return
}
