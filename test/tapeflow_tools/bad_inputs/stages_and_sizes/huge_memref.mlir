// A missing memref argument is zero-filled: 8 TB is refused before numpy tries.
// TOOL: tapeflow-run
// ARGS: {file} --function f --out {out}
// ERROR: input arg0 of @f (a memref<1000000000000xf64>) is missing, and zero-filling it allocates 8000000000000 bytes, more than the executor's limit
func.func @f(%x: memref<1000000000000xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<1000000000000xf64>
  return %v : f64
}
