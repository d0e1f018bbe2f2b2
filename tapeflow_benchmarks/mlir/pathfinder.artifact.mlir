// pathfinder, preset artifact (R=100, C=100).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/pathfinder.py, not this file.
func.func @pathfinder(%src: memref<100x100xf64>, %wall: memref<100x100xf64>, %dst: memref<100x100xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c49 = arith.constant 49 : index
  %c98 = arith.constant 98 : index
  %c100 = arith.constant 100 : index
  scf.for %pair = %c0 to %c49 step %c1 {
    %t = arith.muli %pair, %c2 : index
    // row %t of %src -> row %t + 1 of %dst
    %even_next = arith.addi %t, %c1 : index
    scf.for %n = %c0 to %c100 step %c1 {
      %even_n_minus = arith.subi %n, %c1 : index
      %even_has_left = arith.cmpi ugt, %n, %c0 : index
      %even_left = arith.select %even_has_left, %even_n_minus, %n : index
      %even_n_plus = arith.addi %n, %c1 : index
      %even_has_right = arith.cmpi ult, %n, %c98 : index
      %even_right = arith.select %even_has_right, %even_n_plus, %n : index
      %even_m = memref.load %src[%t, %n] : memref<100x100xf64>
      %even_l = memref.load %src[%t, %even_left] : memref<100x100xf64>
      %even_r = memref.load %src[%t, %even_right] : memref<100x100xf64>
      %even_ml = arith.minimumf %even_m, %even_l : f64
      %even_mlr = arith.minimumf %even_ml, %even_r : f64
      %even_w = memref.load %wall[%even_next, %n] : memref<100x100xf64>
      %even_v = arith.mulf %even_w, %even_mlr : f64
      memref.store %even_v, %dst[%even_next, %n] : memref<100x100xf64>
    }
    %t_odd = arith.addi %t, %c1 : index
    // row %t_odd of %dst -> row %t_odd + 1 of %src
    %odd_next = arith.addi %t_odd, %c1 : index
    scf.for %n = %c0 to %c100 step %c1 {
      %odd_n_minus = arith.subi %n, %c1 : index
      %odd_has_left = arith.cmpi ugt, %n, %c0 : index
      %odd_left = arith.select %odd_has_left, %odd_n_minus, %n : index
      %odd_n_plus = arith.addi %n, %c1 : index
      %odd_has_right = arith.cmpi ult, %n, %c98 : index
      %odd_right = arith.select %odd_has_right, %odd_n_plus, %n : index
      %odd_m = memref.load %dst[%t_odd, %n] : memref<100x100xf64>
      %odd_l = memref.load %dst[%t_odd, %odd_left] : memref<100x100xf64>
      %odd_r = memref.load %dst[%t_odd, %odd_right] : memref<100x100xf64>
      %odd_ml = arith.minimumf %odd_m, %odd_l : f64
      %odd_mlr = arith.minimumf %odd_ml, %odd_r : f64
      %odd_w = memref.load %wall[%odd_next, %n] : memref<100x100xf64>
      %odd_v = arith.mulf %odd_w, %odd_mlr : f64
      memref.store %odd_v, %src[%odd_next, %n] : memref<100x100xf64>
    }
  }
  // row %c98 of %src -> row %c98 + 1 of %dst
  %last_next = arith.addi %c98, %c1 : index
  scf.for %n = %c0 to %c100 step %c1 {
    %last_n_minus = arith.subi %n, %c1 : index
    %last_has_left = arith.cmpi ugt, %n, %c0 : index
    %last_left = arith.select %last_has_left, %last_n_minus, %n : index
    %last_n_plus = arith.addi %n, %c1 : index
    %last_has_right = arith.cmpi ult, %n, %c98 : index
    %last_right = arith.select %last_has_right, %last_n_plus, %n : index
    %last_m = memref.load %src[%c98, %n] : memref<100x100xf64>
    %last_l = memref.load %src[%c98, %last_left] : memref<100x100xf64>
    %last_r = memref.load %src[%c98, %last_right] : memref<100x100xf64>
    %last_ml = arith.minimumf %last_m, %last_l : f64
    %last_mlr = arith.minimumf %last_ml, %last_r : f64
    %last_w = memref.load %wall[%last_next, %n] : memref<100x100xf64>
    %last_v = arith.mulf %last_w, %last_mlr : f64
    memref.store %last_v, %dst[%last_next, %n] : memref<100x100xf64>
  }
  return
}

func.func @pathfinder_grad(%src: memref<100x100xf64>, %d_src: memref<100x100xf64>, %wall: memref<100x100xf64>, %d_wall: memref<100x100xf64>, %dst: memref<100x100xf64>, %d_dst: memref<100x100xf64>) {
  enzyme.autodiff @pathfinder(%src, %d_src, %wall, %d_wall, %dst, %d_dst) <{activity = [#enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<100x100xf64>, memref<100x100xf64>, memref<100x100xf64>, memref<100x100xf64>, memref<100x100xf64>, memref<100x100xf64>) -> ()
  return
}
