// TOOL: tapeflow-opt
// ARGS: {file}
// ERROR: {file}:9:3: error: redefinition of symbol @h, first defined at {file}:6:3
builtin.module {
  builtin.module @inner {
  func.func @h() {
    func.return
  }
  func.func @h() {
    func.return
  }
  }
}
