// Stores of constants into buffers whose old value was read before and whose new
// value is read after, at loop depths 0 to 3: the derivative with respect to the
// old value must keep what was read before and drop what is read after
// (docs/enzyme-bugs.md). Kinds: Enzyme-MLIR's reverse-mode tests of memory
// updated in loops (enzyme/test/MLIR/ReverseMode/scf_for_mutable_memory.mlir,
// scf_for_memref.mlir), and the PolyBench/C 4.2 idioms they stand for: a
// local accumulator reset in every outer iteration (2mm/3mm's `tmp`), and a
// matrix product whose output is zeroed at k == 0 inside the innermost loop (how
// Polygeist emits `C[i][j] = 0` fused into gemm's k loop). Written anew.
func.func @f(%x: memref<3xf64>, %y: memref<3x2xf64>, %z: memref<2x2xf64>, %w: memref<2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %acc = memref.alloca() : memref<1xf64>
  // depth 0: x[0] is read, overwritten by 0.5, read again.
  %x0 = memref.load %x[%c0] : memref<3xf64>
  %x1 = memref.load %x[%c1] : memref<3xf64>
  %p = arith.mulf %x0, %x1 : f64
  memref.store %p, %x[%c1] : memref<3xf64>
  memref.store %half, %x[%c0] : memref<3xf64>
  %h = memref.load %x[%c0] : memref<3xf64>
  %x2 = memref.load %x[%c2] : memref<3xf64>
  %q = arith.mulf %h, %x2 : f64
  memref.store %q, %x[%c2] : memref<3xf64>
  // depth 1 (and a local accumulator reset at depth 1, summed at depth 2).
  scf.for %i = %c0 to %c3 step %c1 {
    memref.store %zero, %acc[%c0] : memref<1xf64>
    scf.for %j = %c0 to %c2 step %c1 {
      %a = memref.load %acc[%c0] : memref<1xf64>
      %v = memref.load %y[%i, %j] : memref<3x2xf64>
      %v2 = arith.mulf %v, %v : f64
      %s = arith.addf %a, %v2 : f64
      memref.store %s, %acc[%c0] : memref<1xf64>
      // depth 2: y[i][j] keeps its square's root only through acc.
      memref.store %half, %y[%i, %j] : memref<3x2xf64>
    }
    %a = memref.load %acc[%c0] : memref<1xf64>
    %xi = memref.load %x[%i] : memref<3xf64>
    %r = arith.mulf %a, %xi : f64
    memref.store %r, %x[%i] : memref<3xf64>
  }
  // depth 3: z = z_old * 0 + w^T-ish product, zeroed at k == 0 in the k loop.
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      scf.for %k = %c0 to %c3 step %c1 {
        %first = arith.cmpi eq, %k, %c0 : index
        scf.if %first {
          memref.store %zero, %z[%i, %j] : memref<2x2xf64>
        }
        %c = memref.load %z[%i, %j] : memref<2x2xf64>
        %a = memref.load %w[%i, %k] : memref<2x3xf64>
        %b = memref.load %w[%j, %k] : memref<2x3xf64>
        %m = arith.mulf %a, %b : f64
        %s = arith.addf %c, %m : f64
        memref.store %s, %z[%i, %j] : memref<2x2xf64>
      }
    }
  }
  return
}
func.func @f_grad(%x: memref<3xf64>, %dx: memref<3xf64>, %y: memref<3x2xf64>, %dy: memref<3x2xf64>,
                  %z: memref<2x2xf64>, %dz: memref<2x2xf64>, %w: memref<2x3xf64>, %dw: memref<2x3xf64>) {
  enzyme.autodiff @f(%x, %dx, %y, %dy, %z, %dz, %w, %dw) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<3xf64>, memref<3xf64>, memref<3x2xf64>, memref<3x2xf64>, memref<2x2xf64>, memref<2x2xf64>, memref<2x3xf64>, memref<2x3xf64>) -> ()
  return
}
