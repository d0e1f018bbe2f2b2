func.func @f(%v: f64) {
  %t = tape.alloc : !tape.tape<8x
  func.return
}
