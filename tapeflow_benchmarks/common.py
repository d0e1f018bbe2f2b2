"""What the benchmark scripts share: kernel selection on the command line, and a
kernel's module and caller arguments."""

from __future__ import annotations

import argparse
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tapeflow_benchmarks.kernels import ALL_KERNELS, KERNELS, PRESETS
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import bind_arguments


def add_kernel_options(parser: argparse.ArgumentParser) -> None:
    """`--preset` (default paper) and `--kernels a,b` (default all nine)."""
    parser.add_argument("--preset", choices=PRESETS, default="paper")
    parser.add_argument(
        "--kernels",
        default=",".join(KERNELS),
        help="comma-separated kernel keys (default: all nine)",
    )


def chosen(
    parser: argparse.ArgumentParser, text: str, known: object, what: str = "kernel"
) -> list[str]:
    """The comma-separated names in `text`; an unknown one is a usage error."""
    names = [n for n in text.split(",") if n]
    unknown = [n for n in names if n not in known]  # type: ignore[operator]
    if unknown:
        parser.error(
            f"unknown {what}(s) {', '.join(unknown)}; choose from {', '.join(known)}"  # type: ignore[arg-type]
        )
    return names


def parse_kernel(ctx: Context, key: str, preset: str) -> ModuleOp:
    """The kernel's module (primal and `enzyme.autodiff` caller) at `preset`."""
    return LocatingParser(ctx, ALL_KERNELS[key].mlir(preset), f"{key}.{preset}.mlir").parse_module()


def caller_arguments(module: ModuleOp, key: str, preset: str) -> list[Any]:
    """The kernel's inputs, bound to the arguments of `@<key>_grad` in `module`."""
    caller = next(
        f for f in module.ops if getattr(f, "sym_name", None) and f.sym_name.data == f"{key}_grad"
    )  # type: ignore[attr-defined]
    inputs = ALL_KERNELS[key].inputs(preset)
    return bind_arguments(caller, {f"arg{i}": a.copy() for i, a in enumerate(inputs)})  # type: ignore[arg-type]
