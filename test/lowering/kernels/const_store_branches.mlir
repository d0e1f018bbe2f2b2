// Stores of values that carry no derivative under scf.if branches: a ReLU
// written as a branch (the else stores 0), a constant chosen by arith.select, a
// constant yielded by an scf.if, and a store in the branch of a nested scf.if
// (docs/enzyme-bugs.md). Kinds: Enzyme-MLIR's reverse-mode scf.if tests
// (enzyme/test/MLIR/ReverseMode/scf_if.mlir) and PolyBench/C 4.2's
// correlation guard (stddev <= eps ? 1.0 : stddev). Written anew.
func.func @f(%x: memref<4xf64>, %y: memref<4xf64>, %z: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %yi = memref.load %y[%i] : memref<4xf64>
    %pos = arith.cmpf ogt, %v, %zero : f64
    scf.if %pos {
      %s = arith.mulf %v, %yi : f64
      memref.store %s, %y[%i] : memref<4xf64>
    } else {
      memref.store %zero, %y[%i] : memref<4xf64>
    }
    %zi = memref.load %z[%i] : memref<4xf64>
    %big = arith.cmpf ogt, %zi, %one : f64
    %k = arith.select %big, %one, %two : f64
    %even = arith.remui %i, %c2 : index
    %e = arith.cmpi eq, %even, %c0 : index
    %g = scf.if %e -> (f64) {
      scf.yield %k : f64
    } else {
      scf.yield %two : f64
    }
    %t = arith.mulf %zi, %yi : f64
    memref.store %t, %x[%i] : memref<4xf64>
    memref.store %g, %z[%i] : memref<4xf64>
    scf.if %e {
      scf.if %pos {
        memref.store %one, %x[%i] : memref<4xf64>
      }
    }
  }
  return
}
func.func @f_grad(%x: memref<4xf64>, %dx: memref<4xf64>, %y: memref<4xf64>, %dy: memref<4xf64>,
                  %z: memref<4xf64>, %dz: memref<4xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %z, %dz) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
