// lenet, preset artifact (N=32, K=5, C1=6, C2=16, C3=120, F1=84, OUT=10).
// Written by `python -m tapeflow_benchmarks.kernels --write`: edit the template in tapeflow_benchmarks/kernels/lenet.py, not this file.
func.func @lenet(%img: memref<1x32x32xf64>, %w1: memref<6x1x5x5xf64>, %b1: memref<6xf64>, %w2: memref<16x6x5x5xf64>, %b2: memref<16xf64>, %w3: memref<120x16x5x5xf64>, %b3: memref<120xf64>, %w4: memref<84x120xf64>, %b4: memref<84xf64>, %w5: memref<10x84xf64>, %b5: memref<10xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  %c14 = arith.constant 14 : index
  %c16 = arith.constant 16 : index
  %c28 = arith.constant 28 : index
  %c32 = arith.constant 32 : index
  %c84 = arith.constant 84 : index
  %c120 = arith.constant 120 : index
  %zero = arith.constant 0.0 : f64
  %quarter = arith.constant 0.25 : f64
  // conv1: conv1[6][28][28] = relu(b1 + w1 * img), 1 input channels
  %conv1 = memref.alloca() : memref<6x28x28xf64>
  scf.for %conv1_g = %c0 to %c6 step %c1 {
    %conv1_bias = memref.load %b1[%conv1_g] : memref<6xf64>
    scf.for %conv1_y = %c0 to %c28 step %c1 {
      scf.for %conv1_x = %c0 to %c28 step %c1 {
        %conv1_sum = scf.for %conv1_f = %c0 to %c1 step %c1
            iter_args(%conv1_acc_f = %conv1_bias) -> (f64) {
          %conv1_acc_y = scf.for %conv1_dy = %c0 to %c5 step %c1
              iter_args(%conv1_acc_dy = %conv1_acc_f) -> (f64) {
            %conv1_iy = arith.addi %conv1_y, %conv1_dy : index
            %conv1_acc_x = scf.for %conv1_dx = %c0 to %c5 step %c1
                iter_args(%conv1_acc = %conv1_acc_dy) -> (f64) {
              %conv1_ix = arith.addi %conv1_x, %conv1_dx : index
              %conv1_w = memref.load
                  %w1[%conv1_g, %conv1_f, %conv1_dy, %conv1_dx] : memref<6x1x5x5xf64>
              %conv1_in = memref.load %img[%conv1_f, %conv1_iy, %conv1_ix] : memref<1x32x32xf64>
              %conv1_prod = arith.mulf %conv1_w, %conv1_in : f64
              %conv1_next = arith.addf %conv1_acc, %conv1_prod : f64
              scf.yield %conv1_next : f64
            }
            scf.yield %conv1_acc_x : f64
          }
          scf.yield %conv1_acc_y : f64
        }
        %conv1_relu = arith.maximumf %conv1_sum, %zero : f64
        memref.store %conv1_relu, %conv1[%conv1_g, %conv1_y, %conv1_x] : memref<6x28x28xf64>
      }
    }
  }
  // pool1: pool1[6][14][14] = 2x2 average of conv1
  %pool1 = memref.alloca() : memref<6x14x14xf64>
  scf.for %pool1_c = %c0 to %c6 step %c1 {
    scf.for %pool1_y = %c0 to %c14 step %c1 {
      %pool1_y0 = arith.muli %pool1_y, %c2 : index
      %pool1_y1 = arith.addi %pool1_y0, %c1 : index
      scf.for %pool1_x = %c0 to %c14 step %c1 {
        %pool1_x0 = arith.muli %pool1_x, %c2 : index
        %pool1_x1 = arith.addi %pool1_x0, %c1 : index
        %pool1_a = memref.load %conv1[%pool1_c, %pool1_y0, %pool1_x0] : memref<6x28x28xf64>
        %pool1_b = memref.load %conv1[%pool1_c, %pool1_y0, %pool1_x1] : memref<6x28x28xf64>
        %pool1_d = memref.load %conv1[%pool1_c, %pool1_y1, %pool1_x0] : memref<6x28x28xf64>
        %pool1_e = memref.load %conv1[%pool1_c, %pool1_y1, %pool1_x1] : memref<6x28x28xf64>
        %pool1_ab = arith.addf %pool1_a, %pool1_b : f64
        %pool1_abd = arith.addf %pool1_ab, %pool1_d : f64
        %pool1_abde = arith.addf %pool1_abd, %pool1_e : f64
        %pool1_avg = arith.mulf %pool1_abde, %quarter : f64
        memref.store %pool1_avg, %pool1[%pool1_c, %pool1_y, %pool1_x] : memref<6x14x14xf64>
      }
    }
  }
  // conv2: conv2[16][10][10] = relu(b2 + w2 * pool1), 6 input channels
  %conv2 = memref.alloca() : memref<16x10x10xf64>
  scf.for %conv2_g = %c0 to %c16 step %c1 {
    %conv2_bias = memref.load %b2[%conv2_g] : memref<16xf64>
    scf.for %conv2_y = %c0 to %c10 step %c1 {
      scf.for %conv2_x = %c0 to %c10 step %c1 {
        %conv2_sum = scf.for %conv2_f = %c0 to %c6 step %c1
            iter_args(%conv2_acc_f = %conv2_bias) -> (f64) {
          %conv2_acc_y = scf.for %conv2_dy = %c0 to %c5 step %c1
              iter_args(%conv2_acc_dy = %conv2_acc_f) -> (f64) {
            %conv2_iy = arith.addi %conv2_y, %conv2_dy : index
            %conv2_acc_x = scf.for %conv2_dx = %c0 to %c5 step %c1
                iter_args(%conv2_acc = %conv2_acc_dy) -> (f64) {
              %conv2_ix = arith.addi %conv2_x, %conv2_dx : index
              %conv2_w = memref.load
                  %w2[%conv2_g, %conv2_f, %conv2_dy, %conv2_dx] : memref<16x6x5x5xf64>
              %conv2_in = memref.load %pool1[%conv2_f, %conv2_iy, %conv2_ix] : memref<6x14x14xf64>
              %conv2_prod = arith.mulf %conv2_w, %conv2_in : f64
              %conv2_next = arith.addf %conv2_acc, %conv2_prod : f64
              scf.yield %conv2_next : f64
            }
            scf.yield %conv2_acc_x : f64
          }
          scf.yield %conv2_acc_y : f64
        }
        %conv2_relu = arith.maximumf %conv2_sum, %zero : f64
        memref.store %conv2_relu, %conv2[%conv2_g, %conv2_y, %conv2_x] : memref<16x10x10xf64>
      }
    }
  }
  // pool2: pool2[16][5][5] = 2x2 average of conv2
  %pool2 = memref.alloca() : memref<16x5x5xf64>
  scf.for %pool2_c = %c0 to %c16 step %c1 {
    scf.for %pool2_y = %c0 to %c5 step %c1 {
      %pool2_y0 = arith.muli %pool2_y, %c2 : index
      %pool2_y1 = arith.addi %pool2_y0, %c1 : index
      scf.for %pool2_x = %c0 to %c5 step %c1 {
        %pool2_x0 = arith.muli %pool2_x, %c2 : index
        %pool2_x1 = arith.addi %pool2_x0, %c1 : index
        %pool2_a = memref.load %conv2[%pool2_c, %pool2_y0, %pool2_x0] : memref<16x10x10xf64>
        %pool2_b = memref.load %conv2[%pool2_c, %pool2_y0, %pool2_x1] : memref<16x10x10xf64>
        %pool2_d = memref.load %conv2[%pool2_c, %pool2_y1, %pool2_x0] : memref<16x10x10xf64>
        %pool2_e = memref.load %conv2[%pool2_c, %pool2_y1, %pool2_x1] : memref<16x10x10xf64>
        %pool2_ab = arith.addf %pool2_a, %pool2_b : f64
        %pool2_abd = arith.addf %pool2_ab, %pool2_d : f64
        %pool2_abde = arith.addf %pool2_abd, %pool2_e : f64
        %pool2_avg = arith.mulf %pool2_abde, %quarter : f64
        memref.store %pool2_avg, %pool2[%pool2_c, %pool2_y, %pool2_x] : memref<16x5x5xf64>
      }
    }
  }
  // conv3: conv3[120][1][1] = relu(b3 + w3 * pool2), 16 input channels
  %conv3 = memref.alloca() : memref<120x1x1xf64>
  scf.for %conv3_g = %c0 to %c120 step %c1 {
    %conv3_bias = memref.load %b3[%conv3_g] : memref<120xf64>
    %conv3_sum = scf.for %conv3_f = %c0 to %c16 step %c1
        iter_args(%conv3_acc_f = %conv3_bias) -> (f64) {
      %conv3_acc_y = scf.for %conv3_dy = %c0 to %c5 step %c1
          iter_args(%conv3_acc_dy = %conv3_acc_f) -> (f64) {
        %conv3_iy = arith.addi %c0, %conv3_dy : index
        %conv3_acc_x = scf.for %conv3_dx = %c0 to %c5 step %c1
            iter_args(%conv3_acc = %conv3_acc_dy) -> (f64) {
          %conv3_ix = arith.addi %c0, %conv3_dx : index
          %conv3_w = memref.load
              %w3[%conv3_g, %conv3_f, %conv3_dy, %conv3_dx] : memref<120x16x5x5xf64>
          %conv3_in = memref.load %pool2[%conv3_f, %conv3_iy, %conv3_ix] : memref<16x5x5xf64>
          %conv3_prod = arith.mulf %conv3_w, %conv3_in : f64
          %conv3_next = arith.addf %conv3_acc, %conv3_prod : f64
          scf.yield %conv3_next : f64
        }
        scf.yield %conv3_acc_x : f64
      }
      scf.yield %conv3_acc_y : f64
    }
    %conv3_relu = arith.maximumf %conv3_sum, %zero : f64
    memref.store %conv3_relu, %conv3[%conv3_g, %c0, %c0] : memref<120x1x1xf64>
  }
  // fc1: hidden[u] = relu(b4[u] + sum_h w4[u][h] * conv3[h])
  %hidden = memref.alloca() : memref<84xf64>
  scf.for %u = %c0 to %c84 step %c1 {
    %b = memref.load %b4[%u] : memref<84xf64>
    %sum = scf.for %h = %c0 to %c120 step %c1 iter_args(%acc = %b) -> (f64) {
      %w = memref.load %w4[%u, %h] : memref<84x120xf64>
      %in = memref.load %conv3[%h, %c0, %c0] : memref<120x1x1xf64>
      %prod = arith.mulf %w, %in : f64
      %next = arith.addf %acc, %prod : f64
      scf.yield %next : f64
    }
    %relu = arith.maximumf %sum, %zero : f64
    memref.store %relu, %hidden[%u] : memref<84xf64>
  }
  // fc2 and the loss: sum over o of (b5[o] + sum_u w5[o][u] * hidden[u])^2
  %loss = scf.for %o = %c0 to %c10 step %c1 iter_args(%total = %zero) -> (f64) {
    %b = memref.load %b5[%o] : memref<10xf64>
    %y = scf.for %u = %c0 to %c84 step %c1 iter_args(%acc = %b) -> (f64) {
      %w = memref.load %w5[%o, %u] : memref<10x84xf64>
      %in = memref.load %hidden[%u] : memref<84xf64>
      %prod = arith.mulf %w, %in : f64
      %next = arith.addf %acc, %prod : f64
      scf.yield %next : f64
    }
    %square = arith.mulf %y, %y : f64
    %next = arith.addf %total, %square : f64
    scf.yield %next : f64
  }
  return %loss : f64
}

func.func @lenet_grad(%img: memref<1x32x32xf64>, %w1: memref<6x1x5x5xf64>, %d_w1: memref<6x1x5x5xf64>, %b1: memref<6xf64>, %d_b1: memref<6xf64>, %w2: memref<16x6x5x5xf64>, %d_w2: memref<16x6x5x5xf64>, %b2: memref<16xf64>, %d_b2: memref<16xf64>, %w3: memref<120x16x5x5xf64>, %d_w3: memref<120x16x5x5xf64>, %b3: memref<120xf64>, %d_b3: memref<120xf64>, %w4: memref<84x120xf64>, %d_w4: memref<84x120xf64>, %b4: memref<84xf64>, %d_b4: memref<84xf64>, %w5: memref<10x84xf64>, %d_w5: memref<10x84xf64>, %b5: memref<10xf64>, %d_b5: memref<10xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @lenet(%img, %w1, %d_w1, %b1, %d_b1, %w2, %d_w2, %b2, %d_b2, %w3, %d_w3, %b3, %d_b3, %w4, %d_w4, %b4, %d_b4, %w5, %d_w5, %b5, %d_b5, %seed) <{activity = [#enzyme.activity<enzyme_const>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>, #enzyme.activity<enzyme_dup>], ret_activity = [#enzyme.activity<enzyme_active>]}> : (memref<1x32x32xf64>, memref<6x1x5x5xf64>, memref<6x1x5x5xf64>, memref<6xf64>, memref<6xf64>, memref<16x6x5x5xf64>, memref<16x6x5x5xf64>, memref<16xf64>, memref<16xf64>, memref<120x16x5x5xf64>, memref<120x16x5x5xf64>, memref<120xf64>, memref<120xf64>, memref<84x120xf64>, memref<84x120xf64>, memref<84xf64>, memref<84xf64>, memref<10x84xf64>, memref<10x84xf64>, memref<10xf64>, memref<10xf64>, f64) -> f64
  return %r : f64
}
