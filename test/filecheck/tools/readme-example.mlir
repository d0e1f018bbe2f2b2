// tapeflow-opt reads the example module of examples/; keep it valid.
// RUN: tapeflow-opt %S/../../../examples/logsum-tape.mlir | filecheck %s

// CHECK: %[[ACC:.*]] = tape.alloc name "acc" : !tape.tape<8xf64>
// CHECK: %[[SUB:.*]] = tape.alloc name "sub" : !tape.tape<8xf64>
// CHECK: tape.store %{{.*}}, %[[ACC]][%{{.*}}] id 0
// CHECK: tape.store %{{.*}}, %[[SUB]][%{{.*}}] id 1
// CHECK: tape.load %[[ACC]][%{{.*}}] from 0
// CHECK: tape.load %[[SUB]][%{{.*}}] from 1
