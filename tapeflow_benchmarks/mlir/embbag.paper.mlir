// embbag, preset paper (B=64, V=256, D=16).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/embbag.py, not this file.
func.func @embbag(%offsets: memref<65xindex>, %input: memref<316xindex>, %psw: memref<316xf64>, %weight: memref<256x16xf64>, %out: memref<64x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %c64 step %c1 {
    %b1 = arith.addi %b, %c1 : index
    %lo = memref.load %offsets[%b] : memref<65xindex>
    %hi = memref.load %offsets[%b1] : memref<65xindex>
    scf.for %k = %lo to %hi step %c1 {
      %j = memref.load %input[%k] : memref<316xindex>
      %p = memref.load %psw[%k] : memref<316xf64>
      scf.for %d = %c0 to %c16 step %c1 {
        %wv = memref.load %weight[%j, %d] : memref<256x16xf64>
        %pw = arith.mulf %p, %wv : f64
        %o = memref.load %out[%b, %d] : memref<64x16xf64>
        %sum = arith.addf %o, %pw : f64
        memref.store %sum, %out[%b, %d] : memref<64x16xf64>
      }
    }
    scf.for %d = %c0 to %c16 step %c1 {
      %o = memref.load %out[%b, %d] : memref<64x16xf64>
      %act = math.tanh %o : f64
      memref.store %act, %out[%b, %d] : memref<64x16xf64>
    }
  }
  return
}

func.func @embbag_grad(%offsets: memref<65xindex>, %input: memref<316xindex>, %psw: memref<316xf64>, %d_psw: memref<316xf64>, %weight: memref<256x16xf64>, %d_weight: memref<256x16xf64>, %out: memref<64x16xf64>, %d_out: memref<64x16xf64>) {
  enzyme.autodiff @embbag(%offsets, %input, %psw, %d_psw, %weight, %d_weight, %out, %d_out) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = []}> : (memref<65xindex>, memref<316xindex>, memref<316xf64>, memref<316xf64>, memref<256x16xf64>, memref<256x16xf64>, memref<64x16xf64>, memref<64x16xf64>) -> ()
  return
}
