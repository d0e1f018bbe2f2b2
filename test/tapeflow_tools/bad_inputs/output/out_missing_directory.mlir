// TOOL: tapeflow-opt
// ARGS: {file} -o {tmp}/no/such/out.mlir
// ERROR: tapeflow-opt: error: -o {tmp}/no/such/out.mlir: the directory {tmp}/no/such does not exist
func.func @f() { func.return }
