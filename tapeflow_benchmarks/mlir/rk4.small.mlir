// rk4, preset small (SM=3, S=2, D=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/rk4.py, not this file.
func.func @rk4(%W: memref<3x3xf64>, %y: memref<4x3xf64>, %k: memref<4x3xf64>, %S: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  %sixth = arith.constant 0.016666666666666666 : f64
  %h1 = arith.constant 0.05 : f64
  %h2 = arith.constant 0.05 : f64
  %h3 = arith.constant 0.1 : f64
  scf.for %s = %c0 to %S step %c1 {
    %s1 = arith.addi %s, %c1 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %m0_a = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %yj = memref.load %y[%s, %j] : memref<4x3xf64>
        %z = arith.addf %yj, %zero : f64
        %w = memref.load %W[%i, %j] : memref<3x3xf64>
        %p = arith.mulf %w, %z : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %m0_act = math.tanh %m0_a : f64
      memref.store %m0_act, %k[%c0, %i] : memref<4x3xf64>
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %m1_a = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %yj = memref.load %y[%s, %j] : memref<4x3xf64>
        %kp = memref.load %k[%c0, %j] : memref<4x3xf64>
        %hk = arith.mulf %h1, %kp : f64
        %z = arith.addf %yj, %hk : f64
        %w = memref.load %W[%i, %j] : memref<3x3xf64>
        %p = arith.mulf %w, %z : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %m1_act = math.tanh %m1_a : f64
      memref.store %m1_act, %k[%c1, %i] : memref<4x3xf64>
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %m2_a = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %yj = memref.load %y[%s, %j] : memref<4x3xf64>
        %kp = memref.load %k[%c1, %j] : memref<4x3xf64>
        %hk = arith.mulf %h2, %kp : f64
        %z = arith.addf %yj, %hk : f64
        %w = memref.load %W[%i, %j] : memref<3x3xf64>
        %p = arith.mulf %w, %z : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %m2_act = math.tanh %m2_a : f64
      memref.store %m2_act, %k[%c2, %i] : memref<4x3xf64>
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %m3_a = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %yj = memref.load %y[%s, %j] : memref<4x3xf64>
        %kp = memref.load %k[%c2, %j] : memref<4x3xf64>
        %hk = arith.mulf %h3, %kp : f64
        %z = arith.addf %yj, %hk : f64
        %w = memref.load %W[%i, %j] : memref<3x3xf64>
        %p = arith.mulf %w, %z : f64
        %next = arith.addf %acc, %p : f64
        scf.yield %next : f64
      }
      %m3_act = math.tanh %m3_a : f64
      memref.store %m3_act, %k[%c3, %i] : memref<4x3xf64>
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %k0 = memref.load %k[%c0, %i] : memref<4x3xf64>
      %k1 = memref.load %k[%c1, %i] : memref<4x3xf64>
      %k2 = memref.load %k[%c2, %i] : memref<4x3xf64>
      %k3 = memref.load %k[%c3, %i] : memref<4x3xf64>
      %k12 = arith.addf %k1, %k2 : f64
      %k12x2 = arith.mulf %two, %k12 : f64
      %k03 = arith.addf %k0, %k3 : f64
      %sum = arith.addf %k03, %k12x2 : f64
      %dy = arith.mulf %sixth, %sum : f64
      %yi = memref.load %y[%s, %i] : memref<4x3xf64>
      %new = arith.addf %yi, %dy : f64
      memref.store %new, %y[%s1, %i] : memref<4x3xf64>
    }
  }
  return
}

func.func @rk4_grad(%W: memref<3x3xf64>, %d_W: memref<3x3xf64>, %y: memref<4x3xf64>, %d_y: memref<4x3xf64>, %k: memref<4x3xf64>, %d_k: memref<4x3xf64>, %S: index) {
  enzyme.autodiff @rk4(%W, %d_W, %y, %d_y, %k, %d_k, %S) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_const>], ret_activity = []}> : (memref<3x3xf64>, memref<3x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, index) -> ()
  return
}
