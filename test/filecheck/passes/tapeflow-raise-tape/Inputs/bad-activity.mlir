// The activities say: primal, shadow, seed; the function takes two arguments.
func.func private @diffeg(%x: memref<4xf64>, %seed: f64) attributes {tapeflow.gradient_of = @g, tapeflow.activity = [#enzyme.activity<enzyme_dup>], tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]} {
  func.return
}
