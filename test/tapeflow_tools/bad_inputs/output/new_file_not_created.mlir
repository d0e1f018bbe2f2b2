// TOOL: tapeflow-opt
// ARGS: {file} -o {tmp}/new.mlir
// ERROR: {file}:6:1: error: redefinition of symbol @f
// A failed run with -o naming a new file leaves no (empty) file behind.
func.func @f() { func.return }
func.func @f() { func.return }
