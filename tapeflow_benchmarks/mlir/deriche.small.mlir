// deriche, preset small (W=3, H=4).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/deriche.py, not this file.
func.func @deriche(%img: memref<3x4xf64>, %out: memref<3x4xf64>, %y1: memref<3x4xf64>, %y2: memref<3x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %a1 = arith.constant -0.18868165852083035 : f64
  %a2 = arith.constant 0.11020906755542557 : f64
  %a3 = arith.constant -0.1836817792590426 : f64
  %a4 = arith.constant 0.11444121081831306 : f64
  %b1 = arith.constant 0.8408964152537145 : f64
  %b2 = arith.constant -0.6065306597126334 : f64
  %k1 = arith.constant 1.0 : f64
  scf.for %o = %c0 to %c3 step %c1 {
    %rf1, %rf2, %rf3 = scf.for %p = %c0 to %c4 step %c1
        iter_args(%xm1 = %zero, %ym1 = %zero, %ym2 = %zero) -> (f64, f64, f64) {
      %x = memref.load %img[%o, %p] : memref<3x4xf64>
      %t1 = arith.mulf %a1, %x : f64
      %t2 = arith.mulf %a2, %xm1 : f64
      %t3 = arith.mulf %b1, %ym1 : f64
      %t4 = arith.mulf %b2, %ym2 : f64
      %s1 = arith.addf %t1, %t2 : f64
      %s2 = arith.addf %s1, %t3 : f64
      %y = arith.addf %s2, %t4 : f64
      memref.store %y, %y1[%o, %p] : memref<3x4xf64>
      scf.yield %x, %y, %ym1 : f64, f64, f64
    }
  }

  scf.for %o = %c0 to %c3 step %c1 {
    %rb1, %rb2, %rb3, %rb4 = scf.for %r = %c0 to %c4 step %c1
        iter_args(%xp1 = %zero, %xp2 = %zero, %yp1 = %zero, %yp2 = %zero)
        -> (f64, f64, f64, f64) {
      %p = arith.subi %c3, %r : index
      %t1 = arith.mulf %a3, %xp1 : f64
      %t2 = arith.mulf %a4, %xp2 : f64
      %t3 = arith.mulf %b1, %yp1 : f64
      %t4 = arith.mulf %b2, %yp2 : f64
      %s1 = arith.addf %t1, %t2 : f64
      %s2 = arith.addf %s1, %t3 : f64
      %y = arith.addf %s2, %t4 : f64
      memref.store %y, %y2[%o, %p] : memref<3x4xf64>
      %x = memref.load %img[%o, %p] : memref<3x4xf64>
      scf.yield %x, %xp1, %y, %yp1 : f64, f64, f64, f64
    }
  }

  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %u = memref.load %y1[%i, %j] : memref<3x4xf64>
      %v = memref.load %y2[%i, %j] : memref<3x4xf64>
      %uv = arith.addf %u, %v : f64
      %cuv = arith.mulf %k1, %uv : f64
      %act = math.tanh %cuv : f64
      memref.store %act, %out[%i, %j] : memref<3x4xf64>
    }
  }

  scf.for %o = %c0 to %c4 step %c1 {
    %cf1, %cf2, %cf3 = scf.for %p = %c0 to %c3 step %c1
        iter_args(%xm1 = %zero, %ym1 = %zero, %ym2 = %zero) -> (f64, f64, f64) {
      %x = memref.load %out[%p, %o] : memref<3x4xf64>
      %t1 = arith.mulf %a1, %x : f64
      %t2 = arith.mulf %a2, %xm1 : f64
      %t3 = arith.mulf %b1, %ym1 : f64
      %t4 = arith.mulf %b2, %ym2 : f64
      %s1 = arith.addf %t1, %t2 : f64
      %s2 = arith.addf %s1, %t3 : f64
      %y = arith.addf %s2, %t4 : f64
      memref.store %y, %y1[%p, %o] : memref<3x4xf64>
      scf.yield %x, %y, %ym1 : f64, f64, f64
    }
  }

  scf.for %o = %c0 to %c4 step %c1 {
    %cb1, %cb2, %cb3, %cb4 = scf.for %r = %c0 to %c3 step %c1
        iter_args(%xp1 = %zero, %xp2 = %zero, %yp1 = %zero, %yp2 = %zero)
        -> (f64, f64, f64, f64) {
      %p = arith.subi %c2, %r : index
      %t1 = arith.mulf %a3, %xp1 : f64
      %t2 = arith.mulf %a4, %xp2 : f64
      %t3 = arith.mulf %b1, %yp1 : f64
      %t4 = arith.mulf %b2, %yp2 : f64
      %s1 = arith.addf %t1, %t2 : f64
      %s2 = arith.addf %s1, %t3 : f64
      %y = arith.addf %s2, %t4 : f64
      memref.store %y, %y2[%p, %o] : memref<3x4xf64>
      %x = memref.load %out[%p, %o] : memref<3x4xf64>
      scf.yield %x, %xp1, %y, %yp1 : f64, f64, f64, f64
    }
  }

  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %u = memref.load %y1[%i, %j] : memref<3x4xf64>
      %v = memref.load %y2[%i, %j] : memref<3x4xf64>
      %uv = arith.addf %u, %v : f64
      %cuv = arith.mulf %k1, %uv : f64
      memref.store %cuv, %out[%i, %j] : memref<3x4xf64>
    }
  }

  return
}

func.func @deriche_grad(%img: memref<3x4xf64>, %d_img: memref<3x4xf64>, %out: memref<3x4xf64>, %d_out: memref<3x4xf64>, %y1: memref<3x4xf64>, %d_y1: memref<3x4xf64>, %y2: memref<3x4xf64>, %d_y2: memref<3x4xf64>) {
  enzyme.autodiff @deriche(%img, %d_img, %out, %d_out, %y1, %d_y1, %y2, %d_y2) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>, memref<3x4xf64>) -> ()
  return
}
