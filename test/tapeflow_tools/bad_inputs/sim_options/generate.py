"""Writes this folder's --inputs files for @logsum_grad of
tapeflow_benchmarks/mlir/logsum.small.mlir (x: memref<16xf64>, its shadow)."""

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent

if __name__ == "__main__":
    x = np.linspace(0.1, 1.6, 16)
    np.savez(HERE / "logsum_nan.npz", arg0=np.where(np.arange(16) == 5, np.nan, x))
    np.savez(HERE / "logsum_complex.npz", arg0=x * (1 + 1j))
