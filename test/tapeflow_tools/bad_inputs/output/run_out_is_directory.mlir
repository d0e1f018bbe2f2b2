// TOOL: tapeflow-run
// ARGS: {file} --function f --out {tmp}
// ERROR: tapeflow-run: error: --out {tmp}: is a directory; name a file to write
// It used to exit 0 and write {tmp}.npz next to the directory.
func.func @f(%x: memref<4xf64>) {
  func.return
}
