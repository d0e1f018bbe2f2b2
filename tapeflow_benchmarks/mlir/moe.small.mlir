// moe, preset small (E=2, T=5, D=2, H=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/moe.py, not this file.
func.func @moe(%off: memref<3xindex>, %perm: memref<5xindex>, %X: memref<5x2xf64>, %W1: memref<2x3x2xf64>, %W2: memref<2x2x3xf64>, %gate: memref<5xf64>, %Hd: memref<5x3xf64>, %Y: memref<5x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c2 step %c1 {
    %e1 = arith.addi %e, %c1 : index
    %lo = memref.load %off[%e] : memref<3xindex>
    %hi = memref.load %off[%e1] : memref<3xindex>
    scf.for %t = %lo to %hi step %c1 {
      %tok = memref.load %perm[%t] : memref<5xindex>
      scf.for %h = %c0 to %c3 step %c1 {
        %s = scf.for %d = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
          %w = memref.load %W1[%e, %h, %d] : memref<2x3x2xf64>
          %xv = memref.load %X[%tok, %d] : memref<5x2xf64>
          %p = arith.mulf %w, %xv : f64
          %next = arith.addf %acc, %p : f64
          scf.yield %next : f64
        }
        %a = math.tanh %s : f64
        memref.store %a, %Hd[%t, %h] : memref<5x3xf64>
      }
      %g = memref.load %gate[%t] : memref<5xf64>
      scf.for %d = %c0 to %c2 step %c1 {
        %o = scf.for %h = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
          %w = memref.load %W2[%e, %d, %h] : memref<2x2x3xf64>
          %hv = memref.load %Hd[%t, %h] : memref<5x3xf64>
          %p = arith.mulf %w, %hv : f64
          %next = arith.addf %acc, %p : f64
          scf.yield %next : f64
        }
        %yv = arith.mulf %g, %o : f64
        memref.store %yv, %Y[%tok, %d] : memref<5x2xf64>
      }
    }
  }
  return
}

func.func @moe_grad(%off: memref<3xindex>, %perm: memref<5xindex>, %X: memref<5x2xf64>, %d_X: memref<5x2xf64>, %W1: memref<2x3x2xf64>, %d_W1: memref<2x3x2xf64>, %W2: memref<2x2x3xf64>, %d_W2: memref<2x2x3xf64>, %gate: memref<5xf64>, %d_gate: memref<5xf64>, %Hd: memref<5x3xf64>, %d_Hd: memref<5x3xf64>, %Y: memref<5x2xf64>, %d_Y: memref<5x2xf64>) {
  enzyme.autodiff @moe(%off, %perm, %X, %d_X, %W1, %d_W1, %W2, %d_W2, %gate, %d_gate, %Hd, %d_Hd, %Y, %d_Y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3xindex>, memref<5xindex>, memref<5x2xf64>, memref<5x2xf64>, memref<2x3x2xf64>, memref<2x3x2xf64>, memref<2x2x3xf64>, memref<2x2x3xf64>, memref<5xf64>, memref<5xf64>, memref<5x3xf64>, memref<5x3xf64>, memref<5x2xf64>, memref<5x2xf64>) -> ()
  return
}
