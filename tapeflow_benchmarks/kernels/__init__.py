"""
The nine kernels of the paper's evaluation (Table II), by key, and the extra
kernels with loops of run-time trip count (`EXTRA_KERNELS`).

Each kernel module holds its size presets (`small` for the test suite, `paper` for
Table II, `artifact` for the authors' simulator runs, with their unroll factors),
one MLIR template, a numpy primal and an input generator; `Kernel`
(kernel.py) turns those into the MLIR module, the caller's inputs and the expected
state after the gradient call. The rendered modules are committed under
tapeflow_benchmarks/mlir/ (`python -m tapeflow_benchmarks.kernels --write`).
"""

from __future__ import annotations

import autograd
import numpy as np

from tapeflow_benchmarks.kernels import (
    advect,
    atax,
    attention,
    bandchol,
    bandmv,
    batchnorm,
    bicg,
    blackscholes,
    burgers,
    causal,
    cgsolve,
    cholesky,
    conv1d,
    conv1d_n,
    conv2d,
    conv5u,
    conv5u_n,
    convpool,
    correlation,
    covariance,
    csrnorm,
    csrsolve,
    depthwise,
    deriche,
    dilconv,
    doitgen,
    durbin,
    embbag,
    fdtd2d,
    floydsoft,
    focal,
    fputherm,
    gcn,
    gemver,
    gesummv,
    gmm,
    gramschmidt,
    gravity,
    gridsample,
    groupnorm,
    gru,
    gswhile,
    heat3d,
    hmmfwd,
    horner,
    horner_n,
    huber_n,
    jacobi1d,
    jacobi2d,
    kalman,
    kalman_n,
    kmeans,
    layernorm,
    lenet,
    ljpair,
    lngelu,
    localattn,
    logreg,
    logsum,
    logsum_n,
    lorenz96,
    lstm,
    lu,
    ludcmp,
    massspring,
    matdescent,
    mlp,
    mlp2_n,
    moe,
    mttkrp,
    mvt,
    nbgroup,
    nbody_nl,
    newton,
    nn,
    normals,
    nussinov,
    odeadapt,
    pathfinder,
    pic,
    rgbconv,
    rk4,
    rmsnorm_n,
    rnn,
    rnn_ragged,
    rowlse,
    rowsolve,
    sconv,
    segsoftmax,
    seidel2d,
    sinegordon,
    skinning,
    softdtw,
    softedit,
    softmax,
    somier,
    sph,
    spmm,
    spmv,
    spmvt,
    substeps,
    swiglu,
    symm,
    syr2k,
    syrk_n,
    syrk_tri,
    thomas,
    threemm,
    trisolv,
    trmm,
    twomm,
    upconv,
    wnorm,
    xent,
)
from tapeflow_benchmarks.kernels.kernel import CallerArg, Kernel, Param

__all__ = [
    "ALL_KERNELS",
    "EXTRA_KERNELS",
    "KERNELS",
    "NEST_KERNELS",
    "PRESETS",
    "CallerArg",
    "Kernel",
    "Param",
    "central_differences",
    "finite_difference_check",
]

PRESETS = ("small", "paper", "artifact")
"""`small` for the tests, `paper` for Table II, `artifact` for the sizes and unroll
factors of the authors' gem5-SALAM runs (docs/research/gem5-salam.md, section 3)."""

KERNELS: dict[str, Kernel] = {
    module.KERNEL.key: module.KERNEL
    for module in (
        gravity,
        nn,
        logsum,
        matdescent,
        mttkrp,
        somier,
        lenet,
        pathfinder,
        massspring,
    )
}


EXTRA_KERNELS: dict[str, Kernel] = {
    module.KERNEL.key: module.KERNEL for module in (syrk_tri, logsum_n)
}
"""Kernels beyond the paper's nine (loops with run-time trip counts):
triangular SYRK (PolyBench) and logsum over a run-time length. The evaluation
runs them when asked (`tapeflow-bench --extra-kernels`, or by name in
`--kernels`); the paper's experiments and claims stay on the nine."""

NEST_KERNELS: dict[str, Kernel] = {
    module.KERNEL.key: module.KERNEL
    for module in (
        conv1d,
        conv1d_n,
        conv2d,
        mlp,
        rnn,
        softmax,
        logreg,
        rowlse,
        covariance,
        correlation,
        cholesky,
        spmv,
        attention,
        lstm,
        gramschmidt,
        softdtw,
        layernorm,
        depthwise,
        embbag,
        trmm,
        lu,
        doitgen,
        batchnorm,
        gru,
        convpool,
        xent,
        groupnorm,
        ljpair,
        burgers,
        atax,
        trisolv,
        jacobi2d,
        symm,
        durbin,
        seidel2d,
        twomm,
        fdtd2d,
        heat3d,
        rk4,
        kmeans,
        sconv,
        ludcmp,
        gemver,
        bicg,
        causal,
        sinegordon,
        sph,
        swiglu,
        deriche,
        lorenz96,
        blackscholes,
        conv5u,
        conv5u_n,
        syr2k,
        rmsnorm_n,
        spmm,
        horner_n,
        kalman_n,
        huber_n,
        horner,
        kalman,
        gesummv,
        gmm,
        mlp2_n,
        normals,
        segsoftmax,
        skinning,
        newton,
        rowsolve,
        focal,
        hmmfwd,
        dilconv,
        rgbconv,
        lngelu,
        threemm,
        fputherm,
        jacobi1d,
        wnorm,
        thomas,
        csrnorm,
        rnn_ragged,
        nussinov,
        localattn,
        cgsolve,
        substeps,
        csrsolve,
        bandmv,
        floydsoft,
        gswhile,
        moe,
        nbody_nl,
        softedit,
        syrk_n,
        upconv,
        nbgroup,
        gcn,
        spmvt,
        pic,
        advect,
        bandchol,
        gridsample,
        odeadapt,
        mvt,
    )
}
"""Kernels shaped unlike the paper's nine (layers of common frameworks, a textbook
loss, PolyBench's linear algebra and stencils): nests whose outer body caches a
per-iteration value beside an inner loop's tape, triangular nests, time-stepped
stencils, nests in sequence, short inner loops under long outer ones, loops of
run-time trip count, while loops of data-dependent exit. `python -m tapeflow_benchmarks.nest_stats`
measures how TapeFlow streams them; the evaluation runs them when named in
`--kernels`."""

ALL_KERNELS: dict[str, Kernel] = {**KERNELS, **EXTRA_KERNELS, **NEST_KERNELS}
"""The nine, the extra and the nest kernels, by key."""


def central_differences(
    key: str, preset: str, inputs: list[np.ndarray], rel_step: float = 1e-6
) -> dict[str, np.ndarray]:
    """The gradient the caller's shadows receive, by central finite differences of
    the numpy primal, element by element (steps of `rel_step` relative to each
    element, at least `rel_step` absolute), keyed by parameter name."""
    kernel = ALL_KERNELS[key]
    phi, point = kernel.objective(preset, inputs)
    numeric: dict[str, np.ndarray] = {}
    for name, value in point.items():
        numeric[name] = np.empty_like(value)
        for index in np.ndindex(value.shape):
            step = rel_step * max(abs(value[index]), 1.0)
            ends = (value[index] + step, value[index] - step)
            outcomes = []
            for end in ends:
                moved = value.copy()
                moved[index] = end
                outcomes.append(phi({**point, name: moved}))
            numeric[name][index] = (outcomes[0] - outcomes[1]) / (ends[0] - ends[1])
    return numeric


def finite_difference_check(key: str, preset: str = "small", rel_step: float = 1e-6) -> float:
    """The norm-wise relative difference between the autograd gradient that
    `Kernel.expected` reports for the shadows and central finite differences of the
    numpy primal. A sign, index or seed mistake in a reference shows as an O(1)
    difference; a correct one gives about 1e-9."""
    kernel = ALL_KERNELS[key]
    inputs = kernel.inputs(preset)
    phi, point = kernel.objective(preset, inputs)
    analytic = autograd.grad(phi)(point)
    numeric = central_differences(key, preset, inputs, rel_step)
    a = np.concatenate([np.ravel(analytic[name]) for name in point])
    n = np.concatenate([np.ravel(numeric[name]) for name in point])
    return float(np.linalg.norm(a - n) / np.linalg.norm(a))
