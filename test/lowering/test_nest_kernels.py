"""
The nest kernels (`NEST_KERNELS`: convolutions, a dense layer, an RNN, an LSTM and
a GRU, a row softmax, logistic regression, PolyBench's covariance, correlation,
cholesky, gramschmidt, trmm, lu, doitgen, atax, trisolv, jacobi-2d, symm, durbin and
seidel-2d, a CSR sparse product, attention, a banded soft-DTW, layer, batch and group
normalization, a depthwise convolution, an embedding bag, a convolution fused with
max-pooling, a cross-entropy over a run-time batch, Lennard-Jones pairs over a
run-time particle count, a Burgers time stepper over a run-time step count,
PolyBench's 2mm, fdtd-2d, heat-3d, ludcmp and gemver, RK4 over a run-time step
count, a soft k-means step over a run-time point count, a strided convolution with
GELU over a run-time batch, PolyBench's bicg and deriche, causal attention, a
sine-Gordon leapfrog over a run-time step count, an SPH density sum over a run-time
particle count, a SwiGLU block over a run-time batch, Lorenz-96 by RK4 over a run-time
step count, PARSEC's Black-Scholes over a run-time option count, a 5x5 convolution
with its window written out, PolyBench's gesummv, a diagonal Gaussian mixture, a
two-layer MLP over a run-time batch, triangle normals, a graph-attention softmax
over CSR rows, linear blend skinning, Newton's square root by a while loop per
element, a Newton solve per row, a focal loss over rows of four classes, an HMM's
forward pass in log space, a dilated convolution with its window written out, an
MLP with LayerNorm and GELU, PolyBench's 3mm and jacobi-1d, an FPU chain under a
Berendsen thermostat, a weight-normalized dense layer, ragged Thomas solves, CSR
rows with a per-row message norm, an RNN over a ragged batch, nussinov over floats,
sliding-window attention over a run-time length, batched conjugate gradients in a
while loop, particles subcycled by a count computed from data, Newton per CSR row in
a while loop, a band of run-time widths, a soft Floyd-Warshall, Gauss-Seidel in a
while loop, a mixture of experts over run-time token counts, neighbour-list forces
(of all particles and of a group mask's), a ragged soft edit distance, syrk of
run-time sizes, a transposed convolution) through every stage:

- the Enzyme stage's gradient equals autograd's on the numpy primal
  (`Kernel.expected`) and central differences of that primal;
- `tapeflow-pipeline` at 64, 512 and 4096 bytes and the simulator's tapeflow
  variant compute exactly the Enzyme stage's values;
- what TapeFlow makes of their tapes: every region is streamed (none kept in DRAM),
  and values stored around an inner loop make one piece.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
from stage_checks import (
    assert_kernel_gradient_is_the_reference,
    kernel_inputs,
    same_bits,
)
from xdsl.dialects.builtin import ModuleOp

from lowering.pipelines import parse_pipeline
from lowering.tapeflow_layers import layer_module
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from sim.simulator import prepare, simulate
from tapeflow_benchmarks.kernels import NEST_KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.tapeflow_run import bind_arguments, run_function
from targets.hardware import configure

PRESET = "small"
KEYS = list(NEST_KERNELS)


def _inputs(key: str) -> dict[str, np.ndarray]:
    return kernel_inputs(NEST_KERNELS[key], PRESET)


@cache
def _enzyme_outputs(key: str, differentiated: Callable[[str], ModuleOp]) -> dict[str, np.ndarray]:
    """The caller's outputs on the kernel's Enzyme gradient at `PRESET`
    (`stage_checks.kernel_enzyme_outputs`), run on the session's copy of that
    gradient (the `differentiated` fixture: the same text, file name and pass)
    rather than a second one."""
    return run_function(differentiated(key), f"{key}_grad", _inputs(key))


def _assert_same(
    got: dict[str, np.ndarray], key: str, stage: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    problem = same_bits(got, _enzyme_outputs(key, differentiated))
    assert problem is None, f"{key} at {stage}: {problem}"


@pytest.mark.parametrize("key", KEYS)
def test_the_enzyme_gradient_equals_autograd_and_central_differences(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    assert_kernel_gradient_is_the_reference(
        NEST_KERNELS[key], PRESET, _enzyme_outputs(key, differentiated)
    )


@pytest.mark.parametrize("spad", [64, 512, 4096])
@pytest.mark.parametrize("key", KEYS)
def test_every_pipeline_computes_the_enzyme_values(
    key: str, spad: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    parse_pipeline(f"tapeflow-pipeline{{spad-bytes={spad}}}").apply(make_context(), module)
    module.verify()
    got = run_function(module, f"{key}_grad", _inputs(key))
    _assert_same(got, key, f"pipeline {spad} B", differentiated)


@pytest.mark.parametrize("key", KEYS)
def test_the_simulated_tapeflow_variant_computes_the_enzyme_values(
    key: str, differentiated: Callable[[str], ModuleOp]
) -> None:
    hardware = configure("Tflow2k")
    module = differentiated(key)
    tape_bytes = prepare(make_context(), module, "tapeflow", hardware)
    caller = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )
    args = bind_arguments(caller, {k: v.copy() for k, v in _inputs(key).items()})
    result = simulate(module, f"{key}_grad", args, hardware, tape_bytes)
    _assert_same(result.outputs, key, "simulator tapeflow", differentiated)


@pytest.mark.parametrize("spad", [64, 512])
@pytest.mark.parametrize("key", KEYS)
def test_no_region_is_kept_in_dram(
    key: str, spad: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    module = differentiated(key)
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, spad)
    assert not report.kept, report.table()


@pytest.mark.parametrize("spad", [64, 512])
def test_values_stored_around_an_inner_loop_make_one_piece(
    spad: int, differentiated: Callable[[str], ModuleOp]
) -> None:
    """spmv's per-row values: the row's bounds, stored before its inner loop (of
    run-time trip count, strip-mined on its own), and the activation's argument,
    stored after it, are one piece of the row (3 entries), not two."""
    module = differentiated("spmv")
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, spad)
    pieces = [r for r in report.layers if not r.tiled]
    assert [(r.rows, r.slots) for r in pieces] == [(1, 3)], report.table()


def test_a_pixel_that_fits_a_tile_once_is_one_layer_of_its_body(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """conv2d (small: a 4x4 output, a 3x3 kernel) caches 2 values per tap and 1 per
    pixel: 19 entries a pixel. On Tflow32k's shares of 512 B (a loop tile 16
    entries, a straight-line layer 32) one pixel fits, two do not: each pixel's
    body is one layer holding both regions, 19 rows of 1 slot, 16 FWD and 16 REV
    layers executed (before: a tile of the kernel rows and a piece per pixel)."""
    module = differentiated("conv2d")
    raise_module(module)
    form_regions(module)
    (report,) = layer_module(module, 512, tiles_in_flight=2, loop_tiles_in_flight=4)
    assert [(r.rows, r.slots, r.body, r.instances) for r in report.layers] == [
        (3 * 3 * 2 + 1, 1, True, 4 * 4)
    ], report.table()
    assert report.dynamic_layers == 2 * 4 * 4
