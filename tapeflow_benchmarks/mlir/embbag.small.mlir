// embbag, preset small (B=5, V=7, D=3).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/embbag.py, not this file.
func.func @embbag(%offsets: memref<6xindex>, %input: memref<19xindex>, %psw: memref<19xf64>, %weight: memref<7x3xf64>, %out: memref<5x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  scf.for %b = %c0 to %c5 step %c1 {
    %b1 = arith.addi %b, %c1 : index
    %lo = memref.load %offsets[%b] : memref<6xindex>
    %hi = memref.load %offsets[%b1] : memref<6xindex>
    scf.for %k = %lo to %hi step %c1 {
      %j = memref.load %input[%k] : memref<19xindex>
      %p = memref.load %psw[%k] : memref<19xf64>
      scf.for %d = %c0 to %c3 step %c1 {
        %wv = memref.load %weight[%j, %d] : memref<7x3xf64>
        %pw = arith.mulf %p, %wv : f64
        %o = memref.load %out[%b, %d] : memref<5x3xf64>
        %sum = arith.addf %o, %pw : f64
        memref.store %sum, %out[%b, %d] : memref<5x3xf64>
      }
    }
    scf.for %d = %c0 to %c3 step %c1 {
      %o = memref.load %out[%b, %d] : memref<5x3xf64>
      %act = math.tanh %o : f64
      memref.store %act, %out[%b, %d] : memref<5x3xf64>
    }
  }
  return
}

func.func @embbag_grad(%offsets: memref<6xindex>, %input: memref<19xindex>, %psw: memref<19xf64>, %d_psw: memref<19xf64>, %weight: memref<7x3xf64>, %d_weight: memref<7x3xf64>, %out: memref<5x3xf64>, %d_out: memref<5x3xf64>) {
  enzyme.autodiff @embbag(%offsets, %input, %psw, %d_psw, %weight, %d_weight, %out, %d_out) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<6xindex>, memref<19xindex>, memref<19xf64>, memref<19xf64>, memref<7x3xf64>, memref<7x3xf64>, memref<5x3xf64>, memref<5x3xf64>) -> ()
  return
}
