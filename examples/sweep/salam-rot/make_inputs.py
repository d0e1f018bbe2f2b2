"""Writes rot.npz, the inputs of @rot_grad in ../../salam-rot.mlir: arg0 = x,
arg2 = y, arg4 = c, arg6 = s, the rotations' cosines and sines of angles drawn in
[-pi, pi] (the shadows are left out: sweeps and tapeflow-sim zero them). Run it
from anywhere; the values are fixed by the seed."""

from pathlib import Path

import numpy as np

rng = np.random.default_rng(3)
angles = rng.uniform(-np.pi, np.pi, (4, 32))
np.savez(
    Path(__file__).with_name("rot.npz"),
    arg0=rng.uniform(-1.0, 1.0, 16),
    arg2=rng.uniform(-1.0, 1.0, 16),
    arg4=np.cos(angles),
    arg6=np.sin(angles),
)
