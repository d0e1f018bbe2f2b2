"""
`python -m tapeflow_benchmarks.kernels KEY [--preset P]` prints one kernel's MLIR module;
`python -m tapeflow_benchmarks.kernels --write` renders every kernel at every preset into
tapeflow_benchmarks/mlir/<key>.<preset>.mlir, the files the test suite checks are current.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tapeflow_benchmarks.kernels import ALL_KERNELS, PRESETS

MLIR_DIR = Path(__file__).resolve().parent.parent / "mlir"


def mlir_path(key: str, preset: str) -> Path:
    """Where the rendered module of `key` at `preset` is committed."""
    return MLIR_DIR / f"{key}.{preset}.mlir"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tapeflow_benchmarks.kernels", description=__doc__.strip().splitlines()[0]
    )
    parser.add_argument("key", nargs="?", choices=sorted(ALL_KERNELS), help="kernel to print")
    parser.add_argument("--preset", choices=PRESETS, default="small")
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"write every kernel's modules to {MLIR_DIR}",
    )
    args = parser.parse_args(argv)
    if args.write:
        MLIR_DIR.mkdir(exist_ok=True)
        written = 0
        for key, kernel in ALL_KERNELS.items():
            for preset in PRESETS:
                if preset in kernel.sizes:  # the extra kernels have no `artifact` size
                    mlir_path(key, preset).write_text(kernel.mlir(preset))
                    written += 1
        print(f"wrote {written} modules to {MLIR_DIR}")
    elif args.key:
        sys.stdout.write(ALL_KERNELS[args.key].mlir(args.preset))
    else:
        parser.error("name a kernel, or pass --write")


if __name__ == "__main__":
    main()
