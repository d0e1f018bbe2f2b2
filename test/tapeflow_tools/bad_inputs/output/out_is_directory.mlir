// TOOL: tapeflow-opt
// ARGS: {file} -o {tmp}
// ERROR: tapeflow-opt: error: -o {tmp}: is a directory; name a file to write
func.func @f() { func.return }
