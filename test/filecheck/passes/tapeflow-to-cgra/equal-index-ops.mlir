// RUN: tapeflow-opt -p 'tapeflow-to-cgra' %s | filecheck %s

// An integer op that repeats an earlier op of a loop's body (the same operation
// on the same operands, integer constants compared by value) is computed once
// where the kernel's schedule is then no slower: the copy is replaced by the
// earlier op's result before the body is placed, and a constant only the copy
// read goes with it.

// @wide: 16 integer ops and a store on 16 PEs need `ii` 2; `i * 2`, computed
// twice (the second time with a constant of its own), merged, 16 ops fit `ii` 1.
// CHECK-LABEL: func.func private @wide
// CHECK:         %[[C2:[^ ]+]] = arith.constant 2 : index
// CHECK-NOT:     arith.constant 2 :
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      cgra.kernel 0 rows 4 cols 4 ii 1 {
// CHECK-NEXT:        %[[A:[^ ]+]] = cgra.op "arith.muli"(%i, %[[C2]])
// CHECK-NOT:         arith.muli
// CHECK:             cgra.op "arith.addi"(%[[A]], %c3)
// CHECK:             cgra.yield

// @mirrored: a REV loop's tile row `22 - i` (its constant made apart from the
// function's `%c22`) and the adjoint's index `22 - i`. Merged, one `subi` feeds
// both loads, the second a hop away, and the iteration takes a cycle more at the
// same `ii`: both stay.
// CHECK-LABEL: func.func private @mirrored
// CHECK:         cgra.kernel 0 rows 4 cols 4 ii 2 {
// CHECK-NEXT:      cgra.op "arith.subi"(%c22b, %i)
// CHECK-NEXT:      cgra.op "arith.subi"(%c22, %i)

// @distinct: `i * 2` and `i * 3`, and `i - 1` against `1 - i`, differ: all four
// stay.
// CHECK-LABEL: func.func private @distinct
// CHECK-COUNT-2: cgra.op "arith.muli"
// CHECK-COUNT-2: cgra.op "arith.subi"

// @scoped: equal ops in two sibling loops' bodies are not merged (neither
// dominates the other).
// CHECK-LABEL: func.func private @scoped
// CHECK:         cgra.op "arith.muli"(%i, %c2)
// CHECK:         cgra.op "arith.muli"(%j, %c2)

// @typed: `5 : i32` and `5 : i64` cast to index (constants equal in value, not
// in type), and `cmpi slt` against `cmpi sgt` on the same operands (a property
// apart): all four stay.
// CHECK-LABEL: func.func private @typed
// CHECK:         cgra.op "arith.index_cast"(%c5a)
// CHECK-NEXT:    cgra.op "arith.index_cast"(%c5b)
// CHECK-NEXT:    cgra.op "arith.cmpi"(%i, %c2) {{.*}}predicate = 2
// CHECK-NEXT:    cgra.op "arith.cmpi"(%i, %c2) {{.*}}predicate = 4

func.func @f() {
  return
}

func.func private @wide(%t: memref<512xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c2b = arith.constant 2 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %a = arith.muli %i, %c2 : index
    %b = arith.muli %i, %c2b : index
    %s1 = arith.addi %a, %c1 : index
    %s2 = arith.addi %b, %c3 : index
    %s3 = arith.addi %i, %c4 : index
    %s4 = arith.addi %i, %c5 : index
    %s5 = arith.muli %i, %c3 : index
    %s6 = arith.muli %i, %c4 : index
    %t1 = arith.addi %s1, %s2 : index
    %t2 = arith.addi %s3, %s4 : index
    %t3 = arith.addi %s5, %s6 : index
    %t4 = arith.subi %s1, %s3 : index
    %u1 = arith.addi %t1, %t2 : index
    %u2 = arith.addi %t3, %t4 : index
    %v1 = arith.addi %u1, %u2 : index
    %w = arith.subi %v1, %c1 : index
    memref.store %one, %t[%w] : memref<512xf64>
  }
  return
}

func.func private @mirrored(%t: memref<23xf64>, %d: memref<23xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c22 = arith.constant 22 : index
  %c23 = arith.constant 23 : index
  %c22b = arith.constant 22 : index
  scf.for %i = %c0 to %c23 step %c1 {
    %row = arith.subi %c22b, %i : index
    %at = arith.subi %c22, %i : index
    %v = memref.load %t[%row] : memref<23xf64>
    %a = memref.load %d[%at] : memref<23xf64>
    %s = arith.addf %a, %v : f64
    memref.store %s, %d[%at] : memref<23xf64>
  }
  return
}

func.func private @distinct(%t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %a = arith.muli %i, %c2 : index
    %b = arith.muli %i, %c3 : index
    %e = arith.subi %i, %c1 : index
    %f = arith.subi %c1, %i : index
    %g = arith.addi %a, %b : index
    %h = arith.addi %e, %f : index
    %k = arith.addi %g, %h : index
    memref.store %one, %t[%k] : memref<64xf64>
  }
  return
}

func.func private @scoped(%t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %a = arith.muli %i, %c2 : index
    memref.store %one, %t[%a] : memref<64xf64>
  }
  scf.for %j = %c0 to %c8 step %c1 {
    %b = arith.muli %j, %c2 : index
    memref.store %one, %t[%b] : memref<64xf64>
  }
  return
}

func.func private @typed(%t: memref<64xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c5a = arith.constant 5 : i32
  %c5b = arith.constant 5 : i64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %x = arith.index_cast %c5a : i32 to index
    %y = arith.index_cast %c5b : i64 to index
    %p = arith.cmpi slt, %i, %c2 : index
    %q = arith.cmpi sgt, %i, %c2 : index
    %u = arith.select %p, %x, %y : index
    %v = arith.select %q, %u, %i : index
    memref.store %one, %t[%v] : memref<64xf64>
  }
  return
}
