"""Writes chain.npz, the inputs of @chain_grad in chain.mlir: arg0 = x, arg2 = w
(arg1, the shadow dx, is left out: tapeflow-run, tapeflow-sim and sweeps zero it).
Run it from anywhere; the values are fixed by the seed."""

from pathlib import Path

import numpy as np

rng = np.random.default_rng(16)
np.savez(
    Path(__file__).with_name("chain.npz"),
    arg0=rng.uniform(-1.0, 1.0, 32),
    arg2=rng.uniform(0.5, 1.5, 32),
)
