// The cost of a scalar linear-quadratic rollout, written with affine loops
// (Bertsekas, "Dynamic Programming and Optimal Control", vol. I, section 3.1:
// x_{k+1} = a x_k + b u_k, cost sum of q x_k^2 + r u_k^2): `cost = 0; x = x0;
// for k: cost += q x^2 + r u[k]^2; x = a x + b u[k]` as an affine.for carrying
// the cost before the state, then a terminal cost. Written anew.
func.func @f(%x0: memref<1xf64>, %u: memref<6xf64>, %ab: memref<2xf64>, %cost: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %q = arith.constant 1.0 : f64
  %r = arith.constant 0.1 : f64
  %a = affine.load %ab[0] : memref<2xf64>
  %b = affine.load %ab[1] : memref<2xf64>
  %x = affine.load %x0[0] : memref<1xf64>
  %res:2 = affine.for %k = 0 to 6 iter_args(%c = %zero, %s = %x) -> (f64, f64) {
    %uk = affine.load %u[%k] : memref<6xf64>
    %s2 = arith.mulf %s, %s : f64
    %u2 = arith.mulf %uk, %uk : f64
    %qs = arith.mulf %q, %s2 : f64
    %ru = arith.mulf %r, %u2 : f64
    %stage = arith.addf %qs, %ru : f64
    %c2 = arith.addf %c, %stage : f64
    %as = arith.mulf %a, %s : f64
    %bu = arith.mulf %b, %uk : f64
    %next = arith.addf %as, %bu : f64
    affine.yield %c2, %next : f64, f64
  }
  %xn2 = arith.mulf %res#1, %res#1 : f64
  %total = arith.addf %res#0, %xn2 : f64
  affine.store %total, %cost[0] : memref<1xf64>
  return
}
func.func @f_grad(%x0: memref<1xf64>, %dx0: memref<1xf64>, %u: memref<6xf64>, %du: memref<6xf64>, %ab: memref<2xf64>, %dab: memref<2xf64>, %cost: memref<1xf64>, %dcost: memref<1xf64>) {
  enzyme.autodiff @f(%x0, %dx0, %u, %du, %ab, %dab, %cost, %dcost) <{activity = [#enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>, #enzyme<activity enzyme_dup>], ret_activity = []}> : (memref<1xf64>, memref<1xf64>, memref<6xf64>, memref<6xf64>, memref<2xf64>, memref<2xf64>, memref<1xf64>, memref<1xf64>) -> ()
  return
}
