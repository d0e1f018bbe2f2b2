// A DRAM tape sized in packed widths (an f64 and an i1 per iteration, 4 iterations).
%t = stream.alloc bytes 36 : !stream.tape
