// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: tapeflow-opt -p 'tapeflow-enzyme,tapeflow-raise-tape{stats=true}' %S/Inputs/branch-step.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=TRAP

// CSR rows under a branch, every third row skipped (`i % 3 == 1`, computed by
// `arith.remui`, which MLIR declares free of memory effects): Enzyme allocates
// each row's caches inside the `scf.if`. They become tapes of the 4 rows by the
// longest row's entries, sized by the largest extent over every row, the branch
// taken or not (the row pointers it loads are in bounds on every row); no
// per-iteration buffer is left.
// CHECK-LABEL: func.func private @diffebranch_rem
// CHECK-NOT:    memref<4xmemref<?xf64>>
// CHECK:        %[[T:.*]] = tape.alloc(%{{.*}}) name "{{.*}}" : !tape.tape<4x?xf64>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:          scf.if
// CHECK:            scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:              tape.store %{{.*}}, %{{.*}}[%[[I]], %{{.*}}] id {{[0-9]+}} : f64, !tape.tape<4x?xf64>
// CHECK-NOT:    memref.alloc
// STATS: @diffebranch_rem: 4 tapes
// STATS-NOT: kept as memref

// A row's count divides by a step read from memory, zero on the rows the branch
// skips: computing it there could trap, so the caches stay memrefs, with why.
// TRAP: kept as memref: %alloc (memref<4xmemref<?xf64>>): an extent of the per-iteration buffers is computed under a branch by 'arith.ceildivui', which may trap or read out of bounds where the branch is not taken
func.func @branch_rem(%p: memref<5xindex>, %x: memref<20xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64

  scf.for %i = %c0 to %c4 step %c1 {
    %c3 = arith.constant 3 : index
    %m = arith.remui %i, %c3 : index
    %long = arith.cmpi ne, %m, %c1 : index
    %s = scf.if %long -> (f64) {
      %i1 = arith.addi %i, %c1 : index
      %lo = memref.load %p[%i] : memref<5xindex>
      %hi = memref.load %p[%i1] : memref<5xindex>
      %r = scf.for %k = %lo to %hi step %c1 iter_args(%a = %zero) -> (f64) {
        %u = memref.load %x[%k] : memref<20xf64>
        %th = math.tanh %u : f64
        %q = arith.mulf %a, %th : f64
        %q2 = arith.addf %q, %th : f64
        scf.yield %q2 : f64
      }
      scf.yield %r : f64
    } else {
      scf.yield %zero : f64
    }
    memref.store %s, %y[%i] : memref<4xf64>
  }
  return
}
func.func @branch_rem_grad(%p: memref<5xindex>, %x: memref<20xf64>, %d_x: memref<20xf64>, %y: memref<4xf64>, %d_y: memref<4xf64>) {
  enzyme.autodiff @branch_rem(%p, %x, %d_x, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<5xindex>, memref<20xf64>, memref<20xf64>, memref<4xf64>, memref<4xf64>) -> ()
  return
}
