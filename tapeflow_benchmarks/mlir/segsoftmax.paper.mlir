// segsoftmax, preset paper (R=1024, C=1024).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/segsoftmax.py, not this file.
func.func @segsoftmax(%rowptr: memref<1025xindex>, %col: memref<7163xindex>, %e: memref<7163xf64>, %h: memref<1024xf64>, %a: memref<7163xf64>, %y: memref<1024xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c1024 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %lo = memref.load %rowptr[%i] : memref<1025xindex>
    %hi = memref.load %rowptr[%i1] : memref<1025xindex>
    %lo1 = arith.addi %lo, %c1 : index
    %e0 = memref.load %e[%lo] : memref<7163xf64>
    %m = scf.for %k = %lo1 to %hi step %c1 iter_args(%mk = %e0) -> (f64) {
      %ek = memref.load %e[%k] : memref<7163xf64>
      %mn = arith.maximumf %mk, %ek : f64
      scf.yield %mn : f64
    }
    %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
      %ek = memref.load %e[%k] : memref<7163xf64>
      %d = arith.subf %ek, %m : f64
      %x = math.exp %d : f64
      %next = arith.addf %acc, %x : f64
      scf.yield %next : f64
    }
    %inv = arith.divf %one, %s : f64
    %agg = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f64) {
      %ek = memref.load %e[%k] : memref<7163xf64>
      %d = arith.subf %ek, %m : f64
      %x = math.exp %d : f64
      %ak = arith.mulf %x, %inv : f64
      memref.store %ak, %a[%k] : memref<7163xf64>
      %j = memref.load %col[%k] : memref<7163xindex>
      %hj = memref.load %h[%j] : memref<1024xf64>
      %p = arith.mulf %ak, %hj : f64
      %next = arith.addf %acc, %p : f64
      scf.yield %next : f64
    }
    %t = math.tanh %agg : f64
    memref.store %t, %y[%i] : memref<1024xf64>
  }
  return
}

func.func @segsoftmax_grad(%rowptr: memref<1025xindex>, %col: memref<7163xindex>, %e: memref<7163xf64>, %d_e: memref<7163xf64>, %h: memref<1024xf64>, %d_h: memref<1024xf64>, %a: memref<7163xf64>, %d_a: memref<7163xf64>, %y: memref<1024xf64>, %d_y: memref<1024xf64>) {
  enzyme.autodiff @segsoftmax(%rowptr, %col, %e, %d_e, %h, %d_h, %a, %d_a, %y, %d_y) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<1025xindex>, memref<7163xindex>, memref<7163xf64>, memref<7163xf64>, memref<1024xf64>, memref<1024xf64>, memref<7163xf64>, memref<7163xf64>, memref<1024xf64>, memref<1024xf64>) -> ()
  return
}
