// A user's kernel that does not parse (a missing type).
func.func @f(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0]
  return
}
