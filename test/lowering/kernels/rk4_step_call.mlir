// Classical Runge-Kutta integration with the step written as a function, after
// Numerical Recipes in C, 2nd ed., section 16.1, `rk4(y, dydx, n, x, h, yout,
// derivs)`: the step evaluates the derivatives (a function of its own, `derivs`)
// at the start, twice at the midpoint and at the end, in local buffers `yt`,
// `dyt`, `dym`, and writes `yout = y + h/6 (dydx + dyt + 2 dym)` in place of `y`
// (NR allows yout == y). The system is a damped pendulum,
// `theta' = omega, omega' = -g sin(theta) - c omega`, with (g, c) in `p`; the
// driver takes four steps. Both functions touch memory, which Enzyme-MLIR cannot
// differentiate a call of; tapeflow-enzyme inlines them. Written anew.
func.func private @derivs(%y: memref<2xf64>, %p: memref<2xf64>, %dydt: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %theta = memref.load %y[%c0] : memref<2xf64>
  %omega = memref.load %y[%c1] : memref<2xf64>
  %g = memref.load %p[%c0] : memref<2xf64>
  %c = memref.load %p[%c1] : memref<2xf64>
  %s = math.sin %theta : f64
  %gs = arith.mulf %g, %s : f64
  %co = arith.mulf %c, %omega : f64
  %sum = arith.addf %gs, %co : f64
  %acc = arith.negf %sum : f64
  memref.store %omega, %dydt[%c0] : memref<2xf64>
  memref.store %acc, %dydt[%c1] : memref<2xf64>
  return
}
func.func private @rk4(%y: memref<2xf64>, %p: memref<2xf64>, %h: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 0.5 : f64
  %sixth = arith.constant 0.16666666666666666 : f64
  %two = arith.constant 2.0 : f64
  %hh = arith.mulf %h, %half : f64
  %h6 = arith.mulf %h, %sixth : f64
  %dydx = memref.alloca() : memref<2xf64>
  %yt = memref.alloca() : memref<2xf64>
  %dyt = memref.alloca() : memref<2xf64>
  %dym = memref.alloca() : memref<2xf64>
  func.call @derivs(%y, %p, %dydx) : (memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  scf.for %i = %c0 to %c2 step %c1 {
    %yi = memref.load %y[%i] : memref<2xf64>
    %d = memref.load %dydx[%i] : memref<2xf64>
    %m = arith.mulf %hh, %d : f64
    %t = arith.addf %yi, %m : f64
    memref.store %t, %yt[%i] : memref<2xf64>
  }
  func.call @derivs(%yt, %p, %dyt) : (memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  scf.for %i = %c0 to %c2 step %c1 {
    %yi = memref.load %y[%i] : memref<2xf64>
    %d = memref.load %dyt[%i] : memref<2xf64>
    %m = arith.mulf %hh, %d : f64
    %t = arith.addf %yi, %m : f64
    memref.store %t, %yt[%i] : memref<2xf64>
  }
  func.call @derivs(%yt, %p, %dym) : (memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  scf.for %i = %c0 to %c2 step %c1 {
    %yi = memref.load %y[%i] : memref<2xf64>
    %d = memref.load %dym[%i] : memref<2xf64>
    %m = arith.mulf %h, %d : f64
    %t = arith.addf %yi, %m : f64
    memref.store %t, %yt[%i] : memref<2xf64>
    %e = memref.load %dyt[%i] : memref<2xf64>
    %s = arith.addf %d, %e : f64
    memref.store %s, %dym[%i] : memref<2xf64>
  }
  func.call @derivs(%yt, %p, %dyt) : (memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  scf.for %i = %c0 to %c2 step %c1 {
    %yi = memref.load %y[%i] : memref<2xf64>
    %a = memref.load %dydx[%i] : memref<2xf64>
    %b = memref.load %dyt[%i] : memref<2xf64>
    %m = memref.load %dym[%i] : memref<2xf64>
    %m2 = arith.mulf %two, %m : f64
    %ab = arith.addf %a, %b : f64
    %all = arith.addf %ab, %m2 : f64
    %inc = arith.mulf %h6, %all : f64
    %out = arith.addf %yi, %inc : f64
    memref.store %out, %y[%i] : memref<2xf64>
  }
  return
}
func.func @f(%y: memref<2xf64>, %p: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 0.1 : f64
  scf.for %s = %c0 to %c4 step %c1 {
    func.call @rk4(%y, %p, %h) : (memref<2xf64>, memref<2xf64>, f64) -> ()
  }
  return
}
func.func @f_grad(%y: memref<2xf64>, %dy: memref<2xf64>, %p: memref<2xf64>, %dp: memref<2xf64>) {
  enzyme.autodiff @f(%y, %dy, %p, %dp) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  return
}
