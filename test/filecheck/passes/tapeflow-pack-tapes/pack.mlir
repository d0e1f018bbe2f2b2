// RUN: tapeflow-opt -p 'tapeflow-pack-tapes{stats=true}' %S/Inputs/triangle.mlir 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-regions,tapeflow-pack-tapes' %S/Inputs/triangle.mlir | filecheck %s --check-prefix=REGION
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-pack-tapes' %S/../tapeflow-raise-tape/dynamic.mlir | filecheck %s --check-prefix=SYMBOLIC
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape,tapeflow-pack-tapes' %S/Inputs/band.mlir | filecheck %s --check-prefix=CLIPPED
// RUN: not tapeflow-opt -p tapeflow-pack-tapes %S/Inputs/bad-ragged.mlir 2>&1 | filecheck %s --check-prefix=BAD
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-pipeline{spad-bytes=512 stream=always}' %S/../../../lowering/polybench/lu.mlir | filecheck %s --check-prefix=PIPELINE
// RUN: tapeflow-opt -p 'tapeflow-variant{variant=aos}' %S/../../../lowering/polybench/lu.mlir | filecheck %s --check-prefix=AOS

// The j < i triangle of a 4x4 nest, ragged extents (4, i): packed, the tape holds
// the 0 + 1 + 2 + 3 = 6 entries FWD writes (the bounding box held 4 x 3), entry
// (i, j) at i*(i-1)/2 + j: the entries before row i, computed (by Horner's rule,
// as (i - 1) * i / 2) once per outer iteration, plus j in the inner loop. The
// loop that computed the bounding box's extent goes.
// CHECK-LABEL: func.func private @diffef
// CHECK-NOT:    arith.maxsi
// CHECK:        %[[T:.*]] = tape.alloc name "load_arg0" : !tape.tape<6xf64>
// CHECK-NEXT:   scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT:     %[[IM1:.*]] = arith.addi %[[I]], %[[M1]] : index
// CHECK-NEXT:     %[[PROD:.*]] = arith.muli %[[IM1]], %[[I]] : index
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.divsi %[[PROD]], %[[TWO]] : index
// CHECK-NEXT:     scf.for %[[J:.*]] = %{{.*}} to %[[I]] step %{{.*}} {
// CHECK-NEXT:       %[[P:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:       %[[V:.*]] = memref.load
// CHECK-NEXT:       tape.store %[[V]], %[[T]][%[[P]]] id 0 : f64, !tape.tape<6xf64>
// REV reads (i, j) = (3 - r, 2 - r - c) at the same polynomial of its own indices.
// CHECK:        scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[RI:.*]] = arith.subi %{{.*}}, %[[R]] : index
// CHECK-NEXT:     arith.constant -1 : index
// CHECK-NEXT:     %[[RIM1:.*]] = arith.addi %[[RI]], %{{.*}} : index
// CHECK-NEXT:     arith.muli %[[RIM1]], %[[RI]] : index
// CHECK-NEXT:     arith.constant 2 : index
// CHECK-NEXT:     %[[RROW:.*]] = arith.divsi
// CHECK-NEXT:     scf.for
// CHECK-NEXT:       arith.subi
// CHECK-NEXT:       %[[RJ:.*]] = arith.subi
// CHECK-NEXT:       %[[RP:.*]] = arith.addi %[[RROW]], %[[RJ]] : index
// CHECK-NEXT:       tape.load %[[T]][%[[RP]]] from 0 : !tape.tape<6xf64> -> f64
// CHECK:        tape.free %[[T]] : !tape.tape<6xf64>
// CHECK-NOT:    tapeflow.ragged
// STATS: tapeflow-pack-tapes: @diffef: 1 packed
// STATS-NEXT: packed !tape.tape<4x?xf64> -> !tape.tape<6xf64>

// A region packs like its tapes.
// REGION: %[[R:.*]] = region.alloc : !region.region<6, [f64]>
// REGION: region.store %{{.*}}, %[[R]][%{{.*}}] slot 0 id 0 : f64, !region.region<6, [f64]>
// REGION: region.load %[[R]][%{{.*}}] slot 0 from 0 : !region.region<6, [f64]> -> f64
// REGION-NOT: tapeflow.ragged

// A triangle whose size is an argument (for i < n; for j = i+1 .. n; for k < 4):
// 4 * (n-1-i) entries per i, (2*n - 2) * n in all, computed once before FWD and
// shared by the three tapes of the nest, as is the position of each entry
// (4 * (n-1 + ... + n-i) + 4 * (j - i - 1) + k, one level per loop). The count
// reads the buffer of handles' size, n clamped at zero: no entry for n <= 0.
// SYMBOLIC-LABEL: func.func private @diffetri
// SYMBOLIC-SAME:    %[[N:[^:]*]]: index)
// SYMBOLIC:         %[[H:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// SYMBOLIC-NOT:     arith.maxsi
// SYMBOLIC:         %[[TWO:.*]] = arith.constant 2 : index
// SYMBOLIC-NEXT:    %[[N2:.*]] = arith.muli %[[TWO]], %[[H]] : index
// SYMBOLIC-NEXT:    %[[M2:.*]] = arith.constant -2 : index
// SYMBOLIC-NEXT:    %[[N2M2:.*]] = arith.addi %[[N2]], %[[M2]] : index
// SYMBOLIC-NEXT:    %[[COUNT:.*]] = arith.muli %[[N2M2]], %[[H]] : index
// SYMBOLIC-NEXT:    tape.alloc(%[[COUNT]]) name "load_arg0" : !tape.tape<?xf64>
// SYMBOLIC-NEXT:    tape.alloc(%[[COUNT]]) name "load_arg0_2" : !tape.tape<?xf64>
// SYMBOLIC-NEXT:    tape.alloc(%[[COUNT]]) name "load_arg2" : !tape.tape<?xf64>
// SYMBOLIC:         scf.for
// SYMBOLIC:           scf.for
// SYMBOLIC:             scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// SYMBOLIC-NEXT:      %[[P:.*]] = arith.addi %{{.*}}, %[[K]] : index
// SYMBOLIC-NEXT:      memref.load
// SYMBOLIC-NEXT:      tape.store %{{.*}}, %{{.*}}[%[[P]]] id 0 : f64, !tape.tape<?xf64>
// SYMBOLIC-NEXT:      memref.load
// SYMBOLIC-NEXT:      tape.store %{{.*}}, %{{.*}}[%[[P]]] id 1 : f64, !tape.tape<?xf64>
// SYMBOLIC-NEXT:      memref.load
// SYMBOLIC-NEXT:      tape.store %{{.*}}, %{{.*}}[%[[P]]] id 2 : f64, !tape.tape<?xf64>

// A band whose rows run out (Inputs/band.mlir: for i < n, j = i+4 to 12): the
// extent 8 - i is the columns of the rows i < 8 and none after
// (tapeflow.ragged_clip), so the count is (17 - t) * t / 2 over the t = min(n, 8)
// rows that have columns (n clamped at zero: the buffer of handles' size), and
// the position of (i, j) is the columns of the rows before i, (17 - i) * i / 2,
// plus j - i - 4.
// CLIPPED-LABEL: func.func private @diffef
// CLIPPED-SAME:    %[[N:[^:]*]]: index, %{{[^:]*}}: index)
// CLIPPED:         %[[H:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CLIPPED:         %[[EIGHT:.*]] = arith.constant 8 : index
// CLIPPED-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CLIPPED-NEXT:    %[[R:.*]] = arith.maxsi %[[EIGHT]], %[[ZERO]] : index
// CLIPPED-NEXT:    %[[T:.*]] = arith.minsi %[[H]], %[[R]] : index
// CLIPPED-NEXT:    %[[M1:.*]] = arith.constant -1 : index
// CLIPPED-NEXT:    %[[MT:.*]] = arith.muli %[[M1]], %[[T]] : index
// CLIPPED-NEXT:    %[[C17:.*]] = arith.constant 17 : index
// CLIPPED-NEXT:    %[[LEFT:.*]] = arith.addi %[[MT]], %[[C17]] : index
// CLIPPED-NEXT:    %[[PROD:.*]] = arith.muli %[[LEFT]], %[[T]] : index
// CLIPPED-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CLIPPED-NEXT:    %[[COUNT:.*]] = arith.divsi %[[PROD]], %[[TWO]] : index
// CLIPPED-NEXT:    tape.alloc(%[[COUNT]]) name "iter_arg" : !tape.tape<?xf64>
// CLIPPED-NEXT:    tape.alloc(%[[COUNT]]) name "load_arg0_2" : !tape.tape<?xf64>
// CLIPPED:         scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CLIPPED-NEXT:      arith.constant -1 : index
// CLIPPED-NEXT:      %[[MI:.*]] = arith.muli %{{.*}}, %[[I]] : index
// CLIPPED-NEXT:      arith.constant 17 : index
// CLIPPED-NEXT:      %[[ILEFT:.*]] = arith.addi %[[MI]], %{{.*}} : index
// CLIPPED-NEXT:      %[[IPROD:.*]] = arith.muli %[[ILEFT]], %[[I]] : index
// CLIPPED-NEXT:      arith.constant 2 : index
// CLIPPED-NEXT:      %[[ROW:.*]] = arith.divsi %[[IPROD]], %{{.*}} : index
// CLIPPED:           scf.for %[[J:.*]] = %[[LB:.*]] to %{{.*}} step
// CLIPPED-NEXT:        %[[COL:.*]] = arith.subi %[[J]], %[[LB]] : index
// CLIPPED-NEXT:        %[[P:.*]] = arith.addi %[[ROW]], %[[COL]] : index
// CLIPPED-NEXT:        tape.store %{{.*}}, %{{.*}}[%[[P]]] id 2 : f64, !tape.tape<?xf64>
// CLIPPED-NOT:     tapeflow.ragged

// BAD: error: tapeflow-pack-tapes: the 'tape.alloc' %t at {{.*}}bad-ragged.mlir:7:3: the extent of dimension 0 (d1) depends on d1: an extent may depend only on the dimensions before it

// PolyBench lu through the tapeflow variant's lowering: its three regions are
// layered through the scratchpad (the per-(i, j) values as pieces of each
// iteration of the triangular loop), so no region is left in DRAM to pack. Their
// triangles' extents are functions of the outer indices alone, so each DRAM tape
// is reserved at the size of its ragged space, as the aos variant packs it below:
// 10 pairs (i, j < i) of two 8-byte slots, 160 bytes, twice, and 20 triples, 320.
// PIPELINE-LABEL: func.func private @diffef
// PIPELINE-NOT:   region.alloc
// PIPELINE:       stream.alloc bytes 160
// PIPELINE:       stream.alloc bytes 160
// PIPELINE:       stream.alloc bytes 320
// PIPELINE-NOT:   tapeflow.ragged
// Through the aos variant's lowering its regions stay in DRAM, packed: the
// per-(i, j) regions 10 entries of two slots (not 5 x 4), the per-(i, j, k) one 20.
// AOS-LABEL: func.func private @diffef
// AOS:       region.alloc : !region.region<10, [f64, f64]>
// AOS-NEXT:  region.alloc : !region.region<10, [f64, f64]>
// AOS-NEXT:  region.alloc : !region.region<20, [f64, f64]>
// AOS-NOT:   tapeflow.ragged
