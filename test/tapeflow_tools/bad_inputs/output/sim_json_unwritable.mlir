// TOOL: tapeflow-sim
// ARGS: {file} --function f --variant enzyme --preset Enzyme32k --out {out} --json {tmp}/missing/report.json
// ERROR: tapeflow-sim: error: --json {tmp}/missing/report.json: the directory {tmp}/missing does not exist
// Checked before the simulation: the .npz is not written either.
func.func @f(%x: memref<4xf64>) {
  func.return
}
