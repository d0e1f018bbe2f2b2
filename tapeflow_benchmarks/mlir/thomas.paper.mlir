// thomas, preset paper (S=192).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/thomas.py, not this file.
func.func @thomas(%ptr: memref<193xindex>, %a: memref<1347xf64>, %b: memref<1347xf64>, %c: memref<1347xf64>, %r: memref<1347xf64>, %gam: memref<1347xf64>, %u: memref<1347xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c192 = arith.constant 192 : index
  scf.for %s = %c0 to %c192 step %c1 {
    %s1 = arith.addi %s, %c1 : index
    %lo = memref.load %ptr[%s] : memref<193xindex>
    %hi = memref.load %ptr[%s1] : memref<193xindex>
    %b0 = memref.load %b[%lo] : memref<1347xf64>
    %r0 = memref.load %r[%lo] : memref<1347xf64>
    %u0 = arith.divf %r0, %b0 : f64
    memref.store %u0, %u[%lo] : memref<1347xf64>
    %lo1 = arith.addi %lo, %c1 : index
    %last = scf.for %j = %lo1 to %hi step %c1 iter_args(%bet = %b0) -> (f64) {
      %jm = arith.subi %j, %c1 : index
      %cj = memref.load %c[%jm] : memref<1347xf64>
      %g = arith.divf %cj, %bet : f64
      memref.store %g, %gam[%j] : memref<1347xf64>
      %bj = memref.load %b[%j] : memref<1347xf64>
      %aj = memref.load %a[%j] : memref<1347xf64>
      %ag = arith.mulf %aj, %g : f64
      %nb = arith.subf %bj, %ag : f64
      %rj = memref.load %r[%j] : memref<1347xf64>
      %up = memref.load %u[%jm] : memref<1347xf64>
      %au = arith.mulf %aj, %up : f64
      %num = arith.subf %rj, %au : f64
      %uj = arith.divf %num, %nb : f64
      memref.store %uj, %u[%j] : memref<1347xf64>
      scf.yield %nb : f64
    }
    %n = arith.subi %hi, %lo : index
    %n1 = arith.subi %n, %c1 : index
    %hi2 = arith.subi %hi, %c2 : index
    scf.for %k = %c0 to %n1 step %c1 {
      %j = arith.subi %hi2, %k : index
      %j1 = arith.addi %j, %c1 : index
      %g = memref.load %gam[%j1] : memref<1347xf64>
      %un = memref.load %u[%j1] : memref<1347xf64>
      %uj = memref.load %u[%j] : memref<1347xf64>
      %p = arith.mulf %g, %un : f64
      %nu = arith.subf %uj, %p : f64
      memref.store %nu, %u[%j] : memref<1347xf64>
    }
  }
  return
}

func.func @thomas_grad(%ptr: memref<193xindex>, %a: memref<1347xf64>, %d_a: memref<1347xf64>, %b: memref<1347xf64>, %d_b: memref<1347xf64>, %c: memref<1347xf64>, %d_c: memref<1347xf64>, %r: memref<1347xf64>, %d_r: memref<1347xf64>, %gam: memref<1347xf64>, %d_gam: memref<1347xf64>, %u: memref<1347xf64>, %d_u: memref<1347xf64>) {
  enzyme.autodiff @thomas(%ptr, %a, %d_a, %b, %d_b, %c, %d_c, %r, %d_r, %gam, %d_gam, %u, %d_u) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<193xindex>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>, memref<1347xf64>) -> ()
  return
}
