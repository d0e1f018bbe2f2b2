// dilconv, preset paper (H=16, W=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/dilconv.py, not this file.
func.func @dilconv(%x: memref<2x20x20xf64>, %w: memref<2x3x3xf64>, %y: memref<16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %r000 = arith.addi %i, %c0 : index
      %q000 = arith.addi %j, %c0 : index
      %x000 = memref.load %x[%c0, %r000, %q000] : memref<2x20x20xf64>
      %w000 = memref.load %w[%c0, %c0, %c0] : memref<2x3x3xf64>
      %p000 = arith.mulf %w000, %x000 : f64
      %r001 = arith.addi %i, %c0 : index
      %q001 = arith.addi %j, %c2 : index
      %x001 = memref.load %x[%c0, %r001, %q001] : memref<2x20x20xf64>
      %w001 = memref.load %w[%c0, %c0, %c1] : memref<2x3x3xf64>
      %p001 = arith.mulf %w001, %x001 : f64
      %s001 = arith.addf %p000, %p001 : f64
      %r002 = arith.addi %i, %c0 : index
      %q002 = arith.addi %j, %c4 : index
      %x002 = memref.load %x[%c0, %r002, %q002] : memref<2x20x20xf64>
      %w002 = memref.load %w[%c0, %c0, %c2] : memref<2x3x3xf64>
      %p002 = arith.mulf %w002, %x002 : f64
      %s002 = arith.addf %s001, %p002 : f64
      %r010 = arith.addi %i, %c2 : index
      %q010 = arith.addi %j, %c0 : index
      %x010 = memref.load %x[%c0, %r010, %q010] : memref<2x20x20xf64>
      %w010 = memref.load %w[%c0, %c1, %c0] : memref<2x3x3xf64>
      %p010 = arith.mulf %w010, %x010 : f64
      %s010 = arith.addf %s002, %p010 : f64
      %r011 = arith.addi %i, %c2 : index
      %q011 = arith.addi %j, %c2 : index
      %x011 = memref.load %x[%c0, %r011, %q011] : memref<2x20x20xf64>
      %w011 = memref.load %w[%c0, %c1, %c1] : memref<2x3x3xf64>
      %p011 = arith.mulf %w011, %x011 : f64
      %s011 = arith.addf %s010, %p011 : f64
      %r012 = arith.addi %i, %c2 : index
      %q012 = arith.addi %j, %c4 : index
      %x012 = memref.load %x[%c0, %r012, %q012] : memref<2x20x20xf64>
      %w012 = memref.load %w[%c0, %c1, %c2] : memref<2x3x3xf64>
      %p012 = arith.mulf %w012, %x012 : f64
      %s012 = arith.addf %s011, %p012 : f64
      %r020 = arith.addi %i, %c4 : index
      %q020 = arith.addi %j, %c0 : index
      %x020 = memref.load %x[%c0, %r020, %q020] : memref<2x20x20xf64>
      %w020 = memref.load %w[%c0, %c2, %c0] : memref<2x3x3xf64>
      %p020 = arith.mulf %w020, %x020 : f64
      %s020 = arith.addf %s012, %p020 : f64
      %r021 = arith.addi %i, %c4 : index
      %q021 = arith.addi %j, %c2 : index
      %x021 = memref.load %x[%c0, %r021, %q021] : memref<2x20x20xf64>
      %w021 = memref.load %w[%c0, %c2, %c1] : memref<2x3x3xf64>
      %p021 = arith.mulf %w021, %x021 : f64
      %s021 = arith.addf %s020, %p021 : f64
      %r022 = arith.addi %i, %c4 : index
      %q022 = arith.addi %j, %c4 : index
      %x022 = memref.load %x[%c0, %r022, %q022] : memref<2x20x20xf64>
      %w022 = memref.load %w[%c0, %c2, %c2] : memref<2x3x3xf64>
      %p022 = arith.mulf %w022, %x022 : f64
      %s022 = arith.addf %s021, %p022 : f64
      %r100 = arith.addi %i, %c0 : index
      %q100 = arith.addi %j, %c0 : index
      %x100 = memref.load %x[%c1, %r100, %q100] : memref<2x20x20xf64>
      %w100 = memref.load %w[%c1, %c0, %c0] : memref<2x3x3xf64>
      %p100 = arith.mulf %w100, %x100 : f64
      %s100 = arith.addf %s022, %p100 : f64
      %r101 = arith.addi %i, %c0 : index
      %q101 = arith.addi %j, %c2 : index
      %x101 = memref.load %x[%c1, %r101, %q101] : memref<2x20x20xf64>
      %w101 = memref.load %w[%c1, %c0, %c1] : memref<2x3x3xf64>
      %p101 = arith.mulf %w101, %x101 : f64
      %s101 = arith.addf %s100, %p101 : f64
      %r102 = arith.addi %i, %c0 : index
      %q102 = arith.addi %j, %c4 : index
      %x102 = memref.load %x[%c1, %r102, %q102] : memref<2x20x20xf64>
      %w102 = memref.load %w[%c1, %c0, %c2] : memref<2x3x3xf64>
      %p102 = arith.mulf %w102, %x102 : f64
      %s102 = arith.addf %s101, %p102 : f64
      %r110 = arith.addi %i, %c2 : index
      %q110 = arith.addi %j, %c0 : index
      %x110 = memref.load %x[%c1, %r110, %q110] : memref<2x20x20xf64>
      %w110 = memref.load %w[%c1, %c1, %c0] : memref<2x3x3xf64>
      %p110 = arith.mulf %w110, %x110 : f64
      %s110 = arith.addf %s102, %p110 : f64
      %r111 = arith.addi %i, %c2 : index
      %q111 = arith.addi %j, %c2 : index
      %x111 = memref.load %x[%c1, %r111, %q111] : memref<2x20x20xf64>
      %w111 = memref.load %w[%c1, %c1, %c1] : memref<2x3x3xf64>
      %p111 = arith.mulf %w111, %x111 : f64
      %s111 = arith.addf %s110, %p111 : f64
      %r112 = arith.addi %i, %c2 : index
      %q112 = arith.addi %j, %c4 : index
      %x112 = memref.load %x[%c1, %r112, %q112] : memref<2x20x20xf64>
      %w112 = memref.load %w[%c1, %c1, %c2] : memref<2x3x3xf64>
      %p112 = arith.mulf %w112, %x112 : f64
      %s112 = arith.addf %s111, %p112 : f64
      %r120 = arith.addi %i, %c4 : index
      %q120 = arith.addi %j, %c0 : index
      %x120 = memref.load %x[%c1, %r120, %q120] : memref<2x20x20xf64>
      %w120 = memref.load %w[%c1, %c2, %c0] : memref<2x3x3xf64>
      %p120 = arith.mulf %w120, %x120 : f64
      %s120 = arith.addf %s112, %p120 : f64
      %r121 = arith.addi %i, %c4 : index
      %q121 = arith.addi %j, %c2 : index
      %x121 = memref.load %x[%c1, %r121, %q121] : memref<2x20x20xf64>
      %w121 = memref.load %w[%c1, %c2, %c1] : memref<2x3x3xf64>
      %p121 = arith.mulf %w121, %x121 : f64
      %s121 = arith.addf %s120, %p121 : f64
      %r122 = arith.addi %i, %c4 : index
      %q122 = arith.addi %j, %c4 : index
      %x122 = memref.load %x[%c1, %r122, %q122] : memref<2x20x20xf64>
      %w122 = memref.load %w[%c1, %c2, %c2] : memref<2x3x3xf64>
      %p122 = arith.mulf %w122, %x122 : f64
      %s122 = arith.addf %s121, %p122 : f64
      %act = math.tanh %s122 : f64
      memref.store %act, %y[%i, %j] : memref<16x16xf64>
    }
  }
  return
}

func.func @dilconv_grad(%x: memref<2x20x20xf64>, %d_x: memref<2x20x20xf64>, %w: memref<2x3x3xf64>, %d_w: memref<2x3x3xf64>, %y: memref<16x16xf64>, %d_y: memref<16x16xf64>) {
  enzyme.autodiff @dilconv(%x, %d_x, %w, %d_w, %y, %d_y) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<2x20x20xf64>, memref<2x20x20xf64>, memref<2x3x3xf64>, memref<2x3x3xf64>, memref<16x16xf64>, memref<16x16xf64>) -> ()
  return
}
