"""
The gradient of one of the paper's kernels as upstream MLIR, run natively.

    python examples/upstream/run_native.py [KERNEL] [--keep DIR]

1. differentiates KERNEL (default logsum; its `small` preset) with the real
   Enzyme (`tapeflow-enzyme`) and writes it as upstream MLIR
   (`tapeflow-to-upstream`): func, scf, arith, math, memref and linalg only;
2. checks that `mlir-opt-19` verifies it with no flags;
3. adds a `@main` that calls `@KERNEL_grad` on the kernel's inputs, lowers it to
   LLVM with MLIR's standard pipeline and runs it with `mlir-cpu-runner`
   (tapeflow_tools/native_mlir.py);
4. compares every value with `tapeflow-run`'s (the reference executor) and with
   the kernel's gradient by autograd.

With --keep DIR the upstream gradient (KERNEL.upstream.mlir), the module with its
@main (KERNEL.native.mlir) and the LLVM dialect form (KERNEL.llvm.mlir) are left
in DIR, so the same can be done by hand:

    tapeflow-opt tapeflow_benchmarks/mlir/logsum.small.mlir \\
        -p tapeflow-enzyme,tapeflow-to-upstream --print-op-generic | mlir-opt-19
    mlir-opt-19 DIR/logsum.native.mlir --convert-linalg-to-loops ... > DIR/logsum.llvm.mlir
    mlir-cpu-runner-19 -e main -entry-point-result=void DIR/logsum.llvm.mlir

Needs MLIR 19's tools (Debian/Ubuntu: apt-get install mlir-19-tools).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from io import StringIO

import numpy as np
from xdsl.printer import Printer

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_to_upstream import TapeflowToUpstreamPass
from tapeflow_benchmarks.kernels import KERNELS
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.native_mlir import (
    AGREEMENT,
    INSTALL_HINT,
    LOWER_TO_LLVM,
    difference,
    find_mlir_tools,
    native_module,
    run_native,
)
from tapeflow_tools.tapeflow_run import run_function


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernel", nargs="?", default="logsum", choices=sorted(KERNELS))
    parser.add_argument("--keep", help="directory to leave the MLIR files in")
    args = parser.parse_args()
    tools = find_mlir_tools()
    if tools is None:
        print(INSTALL_HINT, file=sys.stderr)
        return 2
    kernel = KERNELS[args.kernel]
    caller = f"{args.kernel}_grad"
    ctx = make_context()
    module = LocatingParser(ctx, kernel.mlir("small"), f"{args.kernel}.small.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)

    upstream = module.clone()
    TapeflowToUpstreamPass().apply(ctx, upstream)
    text = StringIO()
    Printer(stream=text, print_generic_format=True).print_op(upstream)
    verified = subprocess.run(
        [tools.opt], input=text.getvalue(), capture_output=True, text=True, check=False
    )
    if verified.returncode != 0:
        print(f"mlir-opt rejected the upstream gradient:\n{verified.stderr}", file=sys.stderr)
        return 1
    print(
        f"{args.kernel}: the upstream gradient verifies in {os.path.basename(tools.opt)} "
        "with no flags"
    )

    inputs = kernel.inputs("small")
    given = {f"arg{i}": v for i, v in enumerate(inputs)}
    native = run_native(module, caller, given, tools)
    reference = run_function(module, caller, {k: np.array(v, copy=True) for k, v in given.items()})
    autograd_values = kernel.expected("small", inputs)
    worst = 0.0
    agree = True
    for name in sorted(reference, key=lambda n: (len(n), n)):
        got, want = np.asarray(native[name]), np.asarray(reference[name])
        relative = difference(got, want)
        worst = max(worst, relative)
        agree &= relative <= AGREEMENT
        agree &= name not in autograd_values or bool(
            np.allclose(got, autograd_values[name], rtol=1e-9, atol=1e-9)
        )
        print(
            f"  {name:8s} {want.size:5d} values: "
            + ("bit for bit" if relative == 0.0 else f"differ by {relative:.1e} of the largest")
        )
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        with open(os.path.join(args.keep, f"{args.kernel}.upstream.mlir"), "w") as out:
            out.write(text.getvalue())
        with_main = native_module(module, caller, given)
        with open(os.path.join(args.keep, f"{args.kernel}.native.mlir"), "w") as out:
            out.write(with_main)
        lowered = subprocess.run(
            [tools.opt, *(f"--{p}" for p in LOWER_TO_LLVM)],
            input=with_main,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        with open(os.path.join(args.keep, f"{args.kernel}.llvm.mlir"), "w") as out:
            out.write(lowered)
    if not agree:
        print(f"{args.kernel}: the native run differs (by {worst:.1e} of the largest value)")
        return 1
    print(
        f"{args.kernel}: every value agrees with tapeflow-run's (to {worst:.1e} of the "
        "largest value of its array) and with autograd's gradient"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
