"""Writes this folder's inputs archives for @chain_grad in chain.mlir (x, dx, w:
memref<32xf64>); the .case files say what tapeflow-bench --sweep must answer for
each. Run it from anywhere."""

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent

if __name__ == "__main__":
    x, w = np.linspace(-1.0, 1.0, 32), np.full(32, 0.5)
    np.savez(HERE / "chain.npz", arg0=x, arg2=w)
    np.savez(HERE / "wrong_shape.npz", arg0=x[:16], arg2=w)
    np.savez(HERE / "text.npz", arg0=x, arg2=np.array(["w"] * 32))
