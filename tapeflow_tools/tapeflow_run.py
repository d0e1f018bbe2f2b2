"""
`tapeflow-run FILE --function NAME --inputs IN.npz --out OUT.npz`: run one function
of a module (at any stage of the flow) with the reference executor.

`IN.npz` holds `arg0`, `arg1`, ... for the function's arguments by position:
memrefs as arrays of their shape, scalars as 0-d arrays. A memref argument that
is missing is zero-filled (convenient for shadow buffers); a missing scalar is an
error. `OUT.npz` gets every memref argument's contents after the call under the
same keys, and `result0`, `result1`, ... for the returned values.

A module that still holds `enzyme.autodiff` (a primal and its caller, as a user
writes them) is differentiated first with `tapeflow-enzyme`, as `tapeflow-sim`
does: the executor runs Enzyme's gradient, never the `enzyme.autodiff` op itself.

`--out` is checked before anything runs (not a directory, in a writable
directory, not the module or the inputs) and written exactly there, through a temporary file renamed
into place once complete: a failed run leaves no output and an older file untouched.
The checks on inputs are in `tapeflow_tools/arguments.py`.

With `--native` the function is lowered by `tapeflow-to-upstream` to MLIR's own
dialects and run by MLIR 19's `mlir-opt` and `mlir-cpu-runner` instead
(`tapeflow_tools/native_mlir.py`), its arguments bound the same way; `OUT.npz` has
the same keys, and values equal to the executor's up to fused multiply-adds and
libm (`native_mlir.AGREEMENT`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from tapeflow_tools import tapeflow_version
from tapeflow_tools.interrupt import quiet_interrupt

with quiet_interrupt("tapeflow-run"):  # Ctrl-C while the modules load
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp

    from lowering.tapeflow_enzyme import TapeflowEnzymePass
    from sim.executor import ExecutionError, Executor
    from tapeflow_dialects.enzyme import AutoDiffOp
    from tapeflow_tools.arguments import (
        Warn,
        bind_arguments,
        check_function,
        function_name,
        gradients_of,
        load_inputs,
        load_module,
        npz_bytes,
        stderr_warning,
    )
    from tapeflow_tools.atomic import check_distinct, check_output_file, commit_outputs
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import ToolError, reported_errors
    from tapeflow_tools.native_mlir import (
        INSTALL_HINT,
        NativeRunFailed,
        UnsupportedSignature,
        check_native_signature,
        find_mlir_tools,
        run_native,
    )


def run_function(
    module: ModuleOp, name: str, given: dict[str, np.ndarray], warn: Warn | None = None
) -> dict[str, np.ndarray]:
    executor = Executor(module)
    if name not in executor.functions:
        raise ToolError(
            f"no function @{name} in the module (found: "
            f"{', '.join('@' + f for f in executor.functions)})"
        )
    function = executor.functions[name]
    args = bind_arguments(function, given, warn)
    results = executor.run(name, args)
    outputs = {f"arg{i}": value for i, value in enumerate(args) if isinstance(value, np.ndarray)}
    outputs.update({f"result{i}": np.asarray(value) for i, value in enumerate(results)})
    return outputs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tapeflow-run", description="Run a function with the reference executor."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {tapeflow_version()}")
    parser.add_argument("file", help="module to run (.mlir)")
    parser.add_argument(
        "--function", required=True, type=function_name, help="function name (@ optional)"
    )
    parser.add_argument("--inputs", help="arguments as arg0, arg1, ... (.npz)")
    parser.add_argument("--out", required=True, help="where to write the outputs (.npz)")
    parser.add_argument(
        "--native",
        action="store_true",
        help="lower through tapeflow-to-upstream and run with MLIR 19's mlir-opt and "
        "mlir-cpu-runner instead of the reference executor",
    )
    args = parser.parse_args(argv)
    with reported_errors("tapeflow-run"):
        check_output_file(args.out, "--out")
        check_distinct(
            [("--out", args.out)], [("the module", args.file), ("--inputs", args.inputs)]
        )
        tools = find_mlir_tools() if args.native else None
        if args.native and tools is None:
            raise ToolError(f"--native: mlir-opt or mlir-cpu-runner not found. {INSTALL_HINT}")
        module = load_module(args.file)
        function = check_function(module, args.function)
        if args.native:
            try:
                check_native_signature(function)
            except UnsupportedSignature as err:
                raise ToolError(f"--native: {err}") from None
        warn = stderr_warning("tapeflow-run")
        gradients = gradients_of(module, args.function)
        if gradients:
            warn(
                f"--function {args.function}: @{args.function} is the primal function, which "
                f"{', '.join('@' + g for g in gradients)} differentiates; its outputs hold "
                "no derivatives (name the gradient to get them)"
            )
        given = load_inputs(args.inputs) if args.inputs else {}
        if any(isinstance(op, AutoDiffOp) for op in module.walk()):
            TapeflowEnzymePass().apply(make_context(), module)  # as tapeflow-sim does
        try:
            if tools is not None:
                bind_arguments(function, given, warn)  # warned about once, as without --native
                outputs = run_native(module, args.function, given, tools)
            else:
                outputs = run_function(module, args.function, given, warn)
        except ExecutionError as err:
            raise ToolError(str(err)) from None
        except NativeRunFailed as err:
            raise ToolError(f"--native: {err}") from None
        commit_outputs([("--out", args.out, npz_bytes(outputs))])


__all__ = ["bind_arguments", "load_module", "main", "run_function"]

if __name__ == "__main__":
    main()
