// Simple exponential smoothing and its one-step-ahead squared-error loss, the
// objective fitted by statsmodels' SimpleExpSmoothing and ETS models
// (Hyndman & Athanasopoulos, "Forecasting: Principles and Practice", 3rd ed.,
// section 8.1: l_t = alpha * y_t + (1 - alpha) * l_{t-1}, SSE of y_t - l_{t-1}):
// `sse = 0; level = y[0]; for t in 1..n: e = y[t] - level; sse += e * e;
// level = alpha * y[t] + (1 - alpha) * level`. The loss is carried before the
// level it sums over (docs/enzyme-bugs.md: Enzyme-MLIR pairs their adjoints
// wrongly). Outputs: the loss and the last level. Written anew.
func.func @f(%y: memref<8xf64>, %alpha: memref<1xf64>, %out: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %a = memref.load %alpha[%c0] : memref<1xf64>
  %keep = arith.subf %one, %a : f64
  %y0 = memref.load %y[%c0] : memref<8xf64>
  %r:2 = scf.for %t = %c1 to %c8 step %c1 iter_args(%sse = %zero, %level = %y0) -> (f64, f64) {
    %yt = memref.load %y[%t] : memref<8xf64>
    %e = arith.subf %yt, %level : f64
    %e2 = arith.mulf %e, %e : f64
    %sse2 = arith.addf %sse, %e2 : f64
    %new = arith.mulf %a, %yt : f64
    %old = arith.mulf %keep, %level : f64
    %level2 = arith.addf %new, %old : f64
    scf.yield %sse2, %level2 : f64, f64
  }
  memref.store %r#0, %out[%c0] : memref<2xf64>
  memref.store %r#1, %out[%c1] : memref<2xf64>
  return
}
func.func @f_grad(%y: memref<8xf64>, %dy: memref<8xf64>, %alpha: memref<1xf64>, %dalpha: memref<1xf64>, %out: memref<2xf64>, %dout: memref<2xf64>) {
  enzyme.autodiff @f(%y, %dy, %alpha, %dalpha, %out, %dout) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<8xf64>, memref<8xf64>, memref<1xf64>, memref<1xf64>, memref<2xf64>, memref<2xf64>) -> ()
  return
}
