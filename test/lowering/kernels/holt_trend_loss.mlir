// Holt's linear trend method and its one-step-ahead squared-error loss
// (Hyndman & Athanasopoulos, "Forecasting: Principles and Practice", 3rd ed.,
// section 8.2: forecast l + b, l_t = alpha y_t + (1 - alpha)(l_{t-1} + b_{t-1}),
// b_t = beta (l_t - l_{t-1}) + (1 - beta) b_{t-1}; statsmodels' Holt fits the
// SSE): three carried values, the loss initialised by 0 before the level and
// trend initialised from the data. Outputs: the loss and the last forecast.
// Written anew.
func.func @f(%y: memref<7xf64>, %ab: memref<2xf64>, %out: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %alpha = memref.load %ab[%c0] : memref<2xf64>
  %beta = memref.load %ab[%c1] : memref<2xf64>
  %ka = arith.subf %one, %alpha : f64
  %kb = arith.subf %one, %beta : f64
  %y0 = memref.load %y[%c0] : memref<7xf64>
  %y1 = memref.load %y[%c1] : memref<7xf64>
  %b0 = arith.subf %y1, %y0 : f64
  %r:3 = scf.for %t = %c2 to %c7 step %c1 iter_args(%sse = %zero, %l = %y1, %b = %b0) -> (f64, f64, f64) {
    %yt = memref.load %y[%t] : memref<7xf64>
    %fc = arith.addf %l, %b : f64
    %e = arith.subf %yt, %fc : f64
    %e2 = arith.mulf %e, %e : f64
    %sse2 = arith.addf %sse, %e2 : f64
    %ay = arith.mulf %alpha, %yt : f64
    %kf = arith.mulf %ka, %fc : f64
    %l2 = arith.addf %ay, %kf : f64
    %dl = arith.subf %l2, %l : f64
    %bd = arith.mulf %beta, %dl : f64
    %kbb = arith.mulf %kb, %b : f64
    %b2 = arith.addf %bd, %kbb : f64
    scf.yield %sse2, %l2, %b2 : f64, f64, f64
  }
  %next = arith.addf %r#1, %r#2 : f64
  memref.store %r#0, %out[%c0] : memref<2xf64>
  memref.store %next, %out[%c1] : memref<2xf64>
  return
}
func.func @f_grad(%y: memref<7xf64>, %dy: memref<7xf64>, %ab: memref<2xf64>, %dab: memref<2xf64>, %out: memref<2xf64>, %dout: memref<2xf64>) {
  enzyme.autodiff @f(%y, %dy, %ab, %dab, %out, %dout) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<7xf64>, memref<7xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>, memref<2xf64>) -> ()
  return
}
