func.func @f(%v: f64) {
  %t = tape.alloc : !tape.tape<8xf64>
  tape.stash %v, %t : f64
  func.return
}
