// The gradient of logsum (log(prod_i exp(x[i] - x[0])) + x[0]) as Enzyme-MLIR
// produces it, with its two cache buffers written as struct-of-arrays tapes:
// %acc holds the running product of each iteration, %sub the value x[i] - x[0].
// FWD stores both; REV walks the loop backwards and loads them.
func.func private @diffelogsum(%x: memref<8xf64>, %dx: memref<8xf64>, %seed: f64) -> f64 {
  %c7 = arith.constant 7 : index
  %one = arith.constant 1.000000e+00 : f64
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %x0 = memref.load %x[%c0] : memref<8xf64>
  %acc = tape.alloc name "acc" : !tape.tape<8xf64>
  %sub = tape.alloc name "sub" : !tape.tape<8xf64>
  // FWD
  %prod = scf.for %i = %c0 to %c8 step %c1 iter_args(%p = %one) -> (f64) {
    tape.store %p, %acc[%i] id 0 : f64, !tape.tape<8xf64>
    %xi = memref.load %x[%i] : memref<8xf64>
    %d = arith.subf %xi, %x0 : f64
    tape.store %d, %sub[%i] id 1 : f64, !tape.tape<8xf64>
    %e = math.exp %d : f64
    %np = arith.mulf %p, %e : f64
    scf.yield %np : f64
  }
  %log = math.log %prod : f64
  %primal = arith.addf %log, %x0 : f64
  // REV
  %dprod = arith.divf %seed, %prod fastmath<fast> : f64
  %adj:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%dp = %dprod, %dx0 = %seed) -> (f64, f64) {
    %ri = arith.subi %c7, %i : index
    %p = tape.load %acc[%ri] from 0 : !tape.tape<8xf64> -> f64
    %d = tape.load %sub[%ri] from 1 : !tape.tape<8xf64> -> f64
    %e = math.exp %d : f64
    %ndp = arith.mulf %dp, %e fastmath<fast> : f64
    %t = arith.mulf %dp, %p fastmath<fast> : f64
    %de = arith.mulf %t, %e fastmath<fast> : f64
    %ndx0 = arith.subf %dx0, %de fastmath<fast> : f64
    %g = memref.load %dx[%ri] : memref<8xf64>
    %ng = arith.addf %g, %de fastmath<fast> : f64
    memref.store %ng, %dx[%ri] : memref<8xf64>
    scf.yield %ndp, %ndx0 : f64, f64
  }
  tape.free %sub : !tape.tape<8xf64>
  tape.free %acc : !tape.tape<8xf64>
  %g0 = memref.load %dx[%c0] : memref<8xf64>
  %ng0 = arith.addf %g0, %adj#1 fastmath<fast> : f64
  memref.store %ng0, %dx[%c0] : memref<8xf64>
  func.return %primal : f64
}
