// TOOL: tapeflow-sim
// ARGS: {file} --function f --variant enzyme --preset Enzyme32k --json {json} --timeline {existing}/trace.json
// ERROR: tapeflow-sim: error: --timeline {existing}/trace.json: {existing} is a file, not a directory
// A folder named in the path is a file: said so, not that the folder is missing.
func.func @f(%x: memref<4xf64>) {
  func.return
}
