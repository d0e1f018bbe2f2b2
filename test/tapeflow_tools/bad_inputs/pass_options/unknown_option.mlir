// TOOL: tapeflow-opt
// ARGS: -p 'tapeflow-layers{spad-byte=512}' {file} -o {copy}
// ERROR: tapeflow-opt: error: -p: pass 'tapeflow-layers' has no option 'spad-byte' (its options: spad-bytes, tiles-in-flight, loop-tiles-in-flight, stream, cache-bytes, cache-line-bytes, cache-ways, cache-mshrs, cache-ports, dram-latency, integer, dram-bytes-per-cycle, runahead, buffer-base, buffer-alignment, buffers-packed, stats); did you mean 'spad-bytes'?
func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}
