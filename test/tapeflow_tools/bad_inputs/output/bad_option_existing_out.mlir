// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-bytes=abc}' {file} -o {existing}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers', option 'spad-bytes' expects int, got abc
func.func @f() { func.return }
