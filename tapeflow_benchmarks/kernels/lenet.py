"""
LeNet-5: the forward pass of the classic CNN on one image, and a loss.

conv KxK with C1 filters and ReLU -> 2x2 average pooling -> conv KxK with C2
filters and ReLU -> 2x2 average pooling -> conv KxK with C3 filters and ReLU
(the pooled map is KxK, so this gives C3 values) -> dense C3->F1 with ReLU ->
dense F1->OUT -> loss = sum of the squared outputs. Every weight and bias is
differentiated; the image is constant.

The three convolutions are one template (output channel, y, x, input channel,
dy, dx), so the image is `[1][N][N]` and the first filters `[C1][1][K][K]`: a
single input channel. ReLU is `arith.maximumf` with 0 and the pooling is the
average (LeNet's subsampling): no ties for the derivative to choose between.
The activations are temporaries allocated with `memref.alloca`: Enzyme-MLIR
cannot differentiate a `memref.dealloc` of a buffer that carries derivatives.

conv3's output is 1x1, and its y and x loops are left out rather than run once:
with them, Enzyme's `remove-unnecessary-enzyme-ops` fails ("operand #0 does not
dominate this use") once `canonicalize` has folded the single-trip loops.

Sizes: `paper` the classic network (N = 32, K = 5, C1 = 6, C2 = 16, C3 = 120,
F1 = 84, OUT = 10); `small` the same network shrunk to an 11x11 image with 2x2
kernels (10x10 -> 5x5 -> 4x4 -> 2x2 -> 1x1), C1 = 2, C2 = 2, C3 = 3, F1 = 3,
OUT = 2: about 1100 multiply-adds; `artifact` the paper's network (the sizes of the
authors' LeNet runs are not known; LeNet-5's shape fixes them anyway), not unrolled.
"""

from __future__ import annotations

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    index_constants,
    memref,
    render,
)

_CONV_RELU = """
// $name: $out[$cout][$n][$n] = relu($bias + $weights * $inp), $cin input channels
%$out = memref.alloca() : $out_t
scf.for %${name}_g = %c0 to %c$cout step %c1 {
  %${name}_bias = memref.load %$bias[%${name}_g] : $bias_t
  $point
}
"""

_SPATIAL_LOOPS = """
scf.for %${name}_y = %c0 to %c$n step %c1 {
  scf.for %${name}_x = %c0 to %c$n step %c1 {
    $point
  }
}
"""

_CONV_POINT = """
%${name}_sum = scf.for %${name}_f = %c0 to %c$cin step %c1
    iter_args(%${name}_acc_f = %${name}_bias) -> (f64) {
  %${name}_acc_y = scf.for %${name}_dy = %c0 to %c$K step %c1
      iter_args(%${name}_acc_dy = %${name}_acc_f) -> (f64) {
    %${name}_iy = arith.addi $y, %${name}_dy : index
    %${name}_acc_x = scf.for %${name}_dx = %c0 to %c$K step %c1
        iter_args(%${name}_acc = %${name}_acc_dy) -> (f64) {
      %${name}_ix = arith.addi $x, %${name}_dx : index
      %${name}_w = memref.load
          %$weights[%${name}_g, %${name}_f, %${name}_dy, %${name}_dx] : $weights_t
      %${name}_in = memref.load %$inp[%${name}_f, %${name}_iy, %${name}_ix] : $inp_t
      %${name}_prod = arith.mulf %${name}_w, %${name}_in : f64
      %${name}_next = arith.addf %${name}_acc, %${name}_prod : f64
      scf.yield %${name}_next : f64
    }
    scf.yield %${name}_acc_x : f64
  }
  scf.yield %${name}_acc_y : f64
}
%${name}_relu = arith.maximumf %${name}_sum, %zero : f64
memref.store %${name}_relu, %$out[%${name}_g, $y, $x] : $out_t
"""

_POOL = """
// $name: $out[$c][$n][$n] = 2x2 average of $inp
%$out = memref.alloca() : $out_t
scf.for %${name}_c = %c0 to %c$c step %c1 {
  scf.for %${name}_y = %c0 to %c$n step %c1 {
    %${name}_y0 = arith.muli %${name}_y, %c2 : index
    %${name}_y1 = arith.addi %${name}_y0, %c1 : index
    scf.for %${name}_x = %c0 to %c$n step %c1 {
      %${name}_x0 = arith.muli %${name}_x, %c2 : index
      %${name}_x1 = arith.addi %${name}_x0, %c1 : index
      %${name}_a = memref.load %$inp[%${name}_c, %${name}_y0, %${name}_x0] : $inp_t
      %${name}_b = memref.load %$inp[%${name}_c, %${name}_y0, %${name}_x1] : $inp_t
      %${name}_d = memref.load %$inp[%${name}_c, %${name}_y1, %${name}_x0] : $inp_t
      %${name}_e = memref.load %$inp[%${name}_c, %${name}_y1, %${name}_x1] : $inp_t
      %${name}_ab = arith.addf %${name}_a, %${name}_b : f64
      %${name}_abd = arith.addf %${name}_ab, %${name}_d : f64
      %${name}_abde = arith.addf %${name}_abd, %${name}_e : f64
      %${name}_avg = arith.mulf %${name}_abde, %quarter : f64
      memref.store %${name}_avg, %$out[%${name}_c, %${name}_y, %${name}_x] : $out_t
    }
  }
}
"""


def _shapes(s: Sizes) -> dict[str, tuple[int, ...]]:
    """The shape of every buffer, parameters and activations, by name."""
    n, k = s["N"], s["K"]
    n1 = n - k + 1
    p1 = n1 // 2
    n2 = p1 - k + 1
    p2 = n2 // 2
    if n1 % 2 or n2 % 2 or p2 != k:
        raise ValueError(f"lenet: image {n} and kernel {k} do not pool down to {k}x{k}")
    c1, c2, c3, f1, out = s["C1"], s["C2"], s["C3"], s["F1"], s["OUT"]
    return {
        "img": (1, n, n),
        "w1": (c1, 1, k, k),
        "b1": (c1,),
        "w2": (c2, c1, k, k),
        "b2": (c2,),
        "w3": (c3, c2, k, k),
        "b3": (c3,),
        "w4": (f1, c3),
        "b4": (f1,),
        "w5": (out, f1),
        "b5": (out,),
        "conv1": (c1, n1, n1),
        "pool1": (c1, p1, p1),
        "conv2": (c2, n2, n2),
        "pool2": (c2, p2, p2),
        "conv3": (c3, 1, 1),
    }


def params(s: Sizes) -> tuple[Param, ...]:
    shapes = _shapes(s)
    names = ("img", "w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4", "w5", "b5")
    return tuple(Param(name, shapes[name], active=name != "img") for name in names)


def _conv(name: str, inp: str, weights: str, bias: str, out: str, s: Sizes) -> str:
    shapes = _shapes(s)
    cout, cin = shapes[weights][:2]
    n = shapes[out][1]
    values = {
        "name": name,
        "inp": inp,
        "weights": weights,
        "bias": bias,
        "out": out,
        "cout": cout,
        "cin": cin,
        "n": n,
        "K": s["K"],
        "out_t": memref(shapes[out]),
        "inp_t": memref(shapes[inp]),
        "weights_t": memref(shapes[weights]),
        "bias_t": memref(shapes[bias]),
    }
    if n == 1:
        point = render(_CONV_POINT, y="%c0", x="%c0", **values)
    else:
        inner = render(_CONV_POINT, y=f"%{name}_y", x=f"%{name}_x", **values)
        point = render(_SPATIAL_LOOPS, point=inner.strip(), **values)
    return render(_CONV_RELU, point=point.strip(), **values).strip()


def _pool(name: str, inp: str, out: str, s: Sizes) -> str:
    shapes = _shapes(s)
    return render(
        _POOL,
        name=name,
        inp=inp,
        out=out,
        c=shapes[out][0],
        n=shapes[out][1],
        out_t=memref(shapes[out]),
        inp_t=memref(shapes[inp]),
    ).strip()


def body(s: Sizes) -> str:
    shapes = _shapes(s)
    bounds = [d for shape in shapes.values() for d in shape]
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %quarter = arith.constant 0.25 : f64
        $conv1
        $pool1
        $conv2
        $pool2
        $conv3
        // fc1: hidden[u] = relu(b4[u] + sum_h w4[u][h] * conv3[h])
        %hidden = memref.alloca() : $hidden_t
        scf.for %u = %c0 to %c$F1 step %c1 {
          %b = memref.load %b4[%u] : $hidden_t
          %sum = scf.for %h = %c0 to %c$C3 step %c1 iter_args(%acc = %b) -> (f64) {
            %w = memref.load %w4[%u, %h] : $w4_t
            %in = memref.load %conv3[%h, %c0, %c0] : $conv3_t
            %prod = arith.mulf %w, %in : f64
            %next = arith.addf %acc, %prod : f64
            scf.yield %next : f64
          }
          %relu = arith.maximumf %sum, %zero : f64
          memref.store %relu, %hidden[%u] : $hidden_t
        }
        // fc2 and the loss: sum over o of (b5[o] + sum_u w5[o][u] * hidden[u])^2
        %loss = scf.for %o = %c0 to %c$OUT step %c1 iter_args(%total = %zero) -> (f64) {
          %b = memref.load %b5[%o] : $b5_t
          %y = scf.for %u = %c0 to %c$F1 step %c1 iter_args(%acc = %b) -> (f64) {
            %w = memref.load %w5[%o, %u] : $w5_t
            %in = memref.load %hidden[%u] : $hidden_t
            %prod = arith.mulf %w, %in : f64
            %next = arith.addf %acc, %prod : f64
            scf.yield %next : f64
          }
          %square = arith.mulf %y, %y : f64
          %next = arith.addf %total, %square : f64
          scf.yield %next : f64
        }
        return %loss : f64
        """,
        consts=index_constants(0, 1, 2, *bounds),
        conv1=_conv("conv1", "img", "w1", "b1", "conv1", s),
        pool1=_pool("pool1", "conv1", "pool1", s),
        conv2=_conv("conv2", "pool1", "w2", "b2", "conv2", s),
        pool2=_pool("pool2", "conv2", "pool2", s),
        conv3=_conv("conv3", "pool2", "w3", "b3", "conv3", s),
        F1=s["F1"],
        C3=s["C3"],
        OUT=s["OUT"],
        hidden_t=memref(shapes["b4"]),
        w4_t=memref(shapes["w4"]),
        conv3_t=memref(shapes["conv3"]),
        b5_t=memref(shapes["b5"]),
        w5_t=memref(shapes["w5"]),
    )


def _conv_relu(inp: Array, w: Array, b: Array) -> Array:
    k = w.shape[2]
    n = inp.shape[1] - k + 1
    acc = b[:, None, None]
    for dy in range(k):
        for dx in range(k):
            window = inp[:, dy : dy + n, dx : dx + n]
            acc = acc + anp.einsum("gf,fyx->gyx", w[:, :, dy, dx], window)
    return anp.maximum(acc, 0.0)


def _pool2(a: Array) -> Array:
    corners = a[:, 0::2, 0::2], a[:, 0::2, 1::2], a[:, 1::2, 0::2], a[:, 1::2, 1::2]
    return 0.25 * (corners[0] + corners[1] + corners[2] + corners[3])


def primal(s: Sizes, a: dict[str, Array]) -> tuple[Array, dict[str, Array]]:
    p1 = _pool2(_conv_relu(a["img"], a["w1"], a["b1"]))
    p2 = _pool2(_conv_relu(p1, a["w2"], a["b2"]))
    c3 = _conv_relu(p2, a["w3"], a["b3"])[:, 0, 0]
    hidden = anp.maximum(anp.dot(a["w4"], c3) + a["b4"], 0.0)
    y = anp.dot(a["w5"], hidden) + a["b5"]
    return anp.sum(y * y), {}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Pixels in [0, 1); weights with variance 2/fan-in (He) and positive mean
    biases, so that most ReLUs are active and the activations keep their scale
    through the layers."""
    shapes = _shapes(s)
    values = {"img": rng.uniform(0.0, 1.0, shapes["img"])}
    for layer in range(1, 6):
        w_shape = shapes[f"w{layer}"]
        fan_in = int(np.prod(w_shape[1:]))
        values[f"w{layer}"] = rng.normal(0.0, np.sqrt(2.0 / fan_in), w_shape)
        values[f"b{layer}"] = rng.normal(0.1, 0.1, shapes[f"b{layer}"])
    return values


KERNEL = Kernel(
    key="lenet",
    sizes={
        "small": {"N": 11, "K": 2, "C1": 2, "C2": 2, "C3": 3, "F1": 3, "OUT": 2},
        "paper": {"N": 32, "K": 5, "C1": 6, "C2": 16, "C3": 120, "F1": 84, "OUT": 10},
        "artifact": {"N": 32, "K": 5, "C1": 6, "C2": 16, "C3": 120, "F1": 84, "OUT": 10},
    },
    params=params,
    returns_scalar=True,
    body=body,
    primal=primal,
    generate=generate,
)
