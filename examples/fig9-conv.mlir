// The worked example of the paper's Figure 9: a small convolution, the gradient of
// `res` with respect to the filter `fil`. Four taps, written out, so that each
// iteration reads four image values (the paper's tapes t0..t3); each output is
// squashed by tanh, so the gradient needs the values FWD saw.
//
//   tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=64 stream=always stats=true}' examples/fig9-conv.mlir
func.func @conv(%img: memref<19xf64>, %fil: memref<4xf64>, %res: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %f0 = memref.load %fil[%c0] : memref<4xf64>
  %f1 = memref.load %fil[%c1] : memref<4xf64>
  %f2 = memref.load %fil[%c2] : memref<4xf64>
  %f3 = memref.load %fil[%c3] : memref<4xf64>
  scf.for %i = %c0 to %c16 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %i2 = arith.addi %i, %c2 : index
    %i3 = arith.addi %i, %c3 : index
    %x0 = memref.load %img[%i] : memref<19xf64>
    %x1 = memref.load %img[%i1] : memref<19xf64>
    %x2 = memref.load %img[%i2] : memref<19xf64>
    %x3 = memref.load %img[%i3] : memref<19xf64>
    %p0 = arith.mulf %x0, %f0 : f64
    %p1 = arith.mulf %x1, %f1 : f64
    %p2 = arith.mulf %x2, %f2 : f64
    %p3 = arith.mulf %x3, %f3 : f64
    %s01 = arith.addf %p0, %p1 : f64
    %s23 = arith.addf %p2, %p3 : f64
    %s = arith.addf %s01, %s23 : f64
    %r = math.tanh %s : f64
    memref.store %r, %res[%i] : memref<16xf64>
  }
  func.return
}

func.func @conv_grad(%img: memref<19xf64>, %fil: memref<4xf64>, %d_fil: memref<4xf64>, %res: memref<16xf64>, %d_res: memref<16xf64>) {
  enzyme.autodiff @conv(%img, %fil, %d_fil, %res, %d_res) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<19xf64>, memref<4xf64>, memref<4xf64>, memref<16xf64>, memref<16xf64>) -> ()
  func.return
}
