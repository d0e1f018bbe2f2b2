// RUN: tapeflow-opt -p 'tapeflow-unroll{factor=2}' %s | filecheck %s

// After tapeflow-regions: one region per FWD loop nest, a struct of two slots per
// iteration. Store ids are unique per region; each copy of a REV load names the
// FWD store copy that wrote its slot, and keeps its slot. The outer loops are not
// innermost and stay as they are.

func.func @f(%x: memref<3x4xf64>) {
  func.return
}

// CHECK-LABEL: func.func private @diffef
// CHECK:        %[[R:.*]] = region.alloc : !region.region<3x4, [f64, f64]>
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[ONE:.*]] {
// CHECK-NEXT:     %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[STEP:.*]] = arith.constant 2 : index
// CHECK-NEXT:     scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] {
// CHECK-NEXT:       %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<3x4xf64>
// CHECK-NEXT:       %[[W:.*]] = math.exp %[[V]] : f64
// CHECK-NEXT:       region.store %[[V]], %[[R]][%[[I]], %[[J]]] slot 0 id 0 : f64, !region.region<3x4, [f64, f64]>
// CHECK-NEXT:       region.store %[[W]], %[[R]][%[[I]], %[[J]]] slot 1 id 1 : f64, !region.region<3x4, [f64, f64]>
// CHECK-NEXT:       %[[J1:.*]] = arith.addi %[[J]], %[[K1]] : index
// CHECK-NEXT:       %[[V1:.*]] = memref.load %{{.*}}[%[[I]], %[[J1]]] : memref<3x4xf64>
// CHECK-NEXT:       %[[W1:.*]] = math.exp %[[V1]] : f64
// CHECK-NEXT:       region.store %[[V1]], %[[R]][%[[I]], %[[J1]]] slot 0 id 2 : f64, !region.region<3x4, [f64, f64]>
// CHECK-NEXT:       region.store %[[W1]], %[[R]][%[[I]], %[[J1]]] slot 1 id 3 : f64, !region.region<3x4, [f64, f64]>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK:        scf.for %[[RI:.*]] = %{{.*}} to %{{.*}} step %[[ONE]] {
// CHECK-NEXT:     %[[A:.*]] = arith.subi %{{.*}}, %[[RI]] : index
// CHECK-NEXT:     %[[RK1:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[RSTEP:.*]] = arith.constant 2 : index
// CHECK-NEXT:     scf.for %[[RJ:.*]] = %{{.*}} to %{{.*}} step %[[RSTEP]] {
// CHECK-NEXT:       %[[B0:.*]] = arith.subi %{{.*}}, %[[RJ]] : index
// CHECK-NEXT:       region.load %[[R]][%[[A]], %[[B0]]] slot 1 from 3 : !region.region<3x4, [f64, f64]> -> f64
// CHECK-NEXT:       region.load %[[R]][%[[A]], %[[B0]]] slot 0 from 2 : !region.region<3x4, [f64, f64]> -> f64
// CHECK:            %[[RJ1:.*]] = arith.addi %[[RJ]], %[[RK1]] : index
// CHECK-NEXT:       %[[B1:.*]] = arith.subi %{{.*}}, %[[RJ1]] : index
// CHECK-NEXT:       region.load %[[R]][%[[A]], %[[B1]]] slot 1 from 1 : !region.region<3x4, [f64, f64]> -> f64
// CHECK-NEXT:       region.load %[[R]][%[[A]], %[[B1]]] slot 0 from 0 : !region.region<3x4, [f64, f64]> -> f64
// CHECK:          }
// CHECK-NEXT:   }
// CHECK:        region.free %[[R]]
func.func private @diffef(%x: memref<3x4xf64>, %dx: memref<3x4xf64>) attributes {tapeflow.gradient_of = @f} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %r = region.alloc : !region.region<3x4, [f64, f64]>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %j] : memref<3x4xf64>
      %w = math.exp %v : f64
      region.store %v, %r[%i, %j] slot 0 id 0 : f64, !region.region<3x4, [f64, f64]>
      region.store %w, %r[%i, %j] slot 1 id 1 : f64, !region.region<3x4, [f64, f64]>
    }
  }
  scf.for %ri = %c0 to %c3 step %c1 {
    %a = arith.subi %c2, %ri : index
    scf.for %rj = %c0 to %c4 step %c1 {
      %b = arith.subi %c3, %rj : index
      %w = region.load %r[%a, %b] slot 1 from 1 : !region.region<3x4, [f64, f64]> -> f64
      %v = region.load %r[%a, %b] slot 0 from 0 : !region.region<3x4, [f64, f64]> -> f64
      %d = arith.mulf %v, %w : f64
      memref.store %d, %dx[%a, %b] : memref<3x4xf64>
    }
  }
  region.free %r : !region.region<3x4, [f64, f64]>
  func.return
}
