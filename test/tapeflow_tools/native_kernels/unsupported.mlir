// Signatures `tapeflow-run --native` refuses: an f32 buffer, an integer result.
func.func @f32_buffer(%x: memref<4xf32>) {
  return
}
func.func @i64_result() -> i64 {
  %c = arith.constant 3 : i64
  return %c : i64
}
