// A FWD stream of a 4x2 tile (64 bytes) onto a DRAM tape sized with packed widths
// (4 iterations of an f64 and an i1: 36 bytes, rounded to 40), which a tile of one word
// per value would overflow.
func.func @f(%v: f64, %p: i1) {
  %t = stream.alloc bytes 40 : !stream.tape
  layer.layer 0 fwd partner 1 {
    %tile = layer.salloc base 0 capacity 64 : !layer.spad<4x2>
    %rows = arith.constant 4 : index
    stream.fwd %tile rows %rows to %t id 0 : !layer.spad<4x2>
    layer.barrier
  }
  layer.layer 1 rev partner 0 {
    %tile = layer.salloc base 0 capacity 64 : !layer.spad<4x2>
    %rows = arith.constant 4 : index
    stream.rev %t rows %rows to %tile of 0 : !layer.spad<4x2>
    layer.barrier
  }
  func.return
}
