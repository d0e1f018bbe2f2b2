// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-mark-tape-buffers,tapeflow-mark-rev-start,tapeflow-to-cgra{modulo-schedule=false stats=true}' %S/../../../../examples/fig9-conv.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-mark-tape-buffers,tapeflow-mark-rev-start,tapeflow-to-cgra{stats=true}' %S/../../../../examples/fig9-conv.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=MODULO
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-mark-tape-buffers,tapeflow-mark-rev-start,tapeflow-to-cgra{modulo-schedule=false}' %S/../../../../examples/fig9-conv.mlir | filecheck %s --check-prefix=ONEPE
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{modulo-schedule=maybe}' %S/../../../../examples/fig9-conv.mlir 2>&1 | filecheck %s --check-prefix=BAD

// The Figure 9 convolution's Enzyme gradient without the modulo schedule
// (`mapping.modulo_schedule` off, as the salam model lowers): every op on PE
// (0, 0) in program order, each a cycle after the one before or once its
// operands are computed (integer ops 1 cycle, a cache hit 2), and ii the
// schedule's length, so that no iteration overlaps the next. FWD's kernel: three
// index additions (cycles 0-2), the load at %i (3), its cache store once the load
// is done (3 + 2 = 5), the next load (6), its store (8).

// CHECK:      cgra.kernel 0 rows 4 cols 4 ii 63 {
// CHECK-NEXT:   cgra.op "arith.addi"({{.*}}) at 0, 0 cycle 0
// CHECK-NEXT:   cgra.op "arith.addi"({{.*}}) at 0, 0 cycle 1
// CHECK-NEXT:   cgra.op "arith.addi"({{.*}}) at 0, 0 cycle 2
// CHECK-NEXT:   cgra.load {{.*}} cache at 0, 0 cycle 3
// CHECK-NEXT:   cgra.store {{.*}} cache at 0, 0 cycle 5
// CHECK-NEXT:   cgra.load {{.*}} cache at 0, 0 cycle 6
// CHECK-NEXT:   cgra.store {{.*}} cache at 0, 0 cycle 8

// STATS: tapeflow-to-cgra: @diffeconv: 2 kernels (ii 63, 89), 2 straight-line kernels, 0 loops left unmapped
// MODULO: tapeflow-to-cgra: @diffeconv: 2 kernels (ii 5, 5), 2 straight-line kernels, 0 loops left unmapped

// No op off PE (0, 0).
// ONEPE-NOT: at {{[1-9]}}, {{[0-9]}} cycle
// ONEPE-NOT: at {{[0-9]}}, {{[1-9]}} cycle

// BAD: tapeflow-opt: error: -p: pass 'tapeflow-to-cgra', option 'modulo-schedule' expects bool|None, got maybe
