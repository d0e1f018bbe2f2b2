// TOOL: tapeflow-run
// ARGS: {file} --function f --out {out}
// ERROR: {file}:10:5: error: 'arith.mulf' uses %late (operand #1) before its definition (defined at {file}:13:3)
func.func @f(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %w = arith.mulf %v, %late : f64
    memref.store %w, %x[%i] : memref<4xf64>
  }
  %late = arith.constant 2.0 : f64
  func.return
}
