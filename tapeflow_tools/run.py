"""
`tapeflow-run FILE --function NAME --inputs IN.npz --out OUT.npz`: run one function
of a module (at any stage of the flow) with the reference executor.

`IN.npz` holds `arg0`, `arg1`, ... for the function's arguments by position:
memrefs as arrays of their shape, scalars as 0-d arrays. A memref argument that
is missing is zero-filled (convenient for shadow buffers); a missing scalar is an
error. `OUT.npz` gets every memref argument's contents after the call under the
same keys, and `result0`, `result1`, ... for the returned values.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp

from sim.executor import ExecutionError, Executor
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import (
    LocatingParser,
    ToolError,
    reported_errors,
    verify_located,
)


def load_module(path: str) -> ModuleOp:
    """Parse and verify a module file with located diagnostics."""
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise ToolError(f"cannot read {path}: {err.strerror}") from None
    module = LocatingParser(make_context(), text, path).parse_module()
    verify_located(module)
    return module


def bind_arguments(function: func.FuncOp, given: dict[str, np.ndarray]) -> list[Any]:
    """Turn the npz arrays into the function's arguments, checking each one."""
    name = function.sym_name.data
    args: list[Any] = []
    for index, arg_type in enumerate(function.function_type.inputs.data):
        key = f"arg{index}"
        if isinstance(arg_type, MemRefType):
            shape = tuple(arg_type.get_shape())
            integral = isinstance(arg_type.element_type, IndexType | IntegerType)
            dtype = np.int64 if integral else np.float64
            if key not in given:
                args.append(np.zeros(shape, dtype=dtype))
                continue
            array = np.array(given[key], dtype=dtype, copy=True)
            if array.shape != shape:
                raise ToolError(
                    f"input {key} of @{name} has shape {array.shape}, but the argument "
                    f"is {arg_type}"
                )
            args.append(array)
        else:
            if key not in given:
                raise ToolError(f"input {key} (a {arg_type}) of @{name} is missing")
            value = np.asarray(given[key])
            if value.shape != ():
                raise ToolError(f"input {key} of @{name} must be a 0-d array (a {arg_type})")
            integral = isinstance(arg_type, IndexType | IntegerType)
            args.append(int(value) if integral else float(value))
    extra = sorted(set(given) - {f"arg{i}" for i in range(len(args))})
    if extra:
        raise ToolError(f"inputs {', '.join(extra)} do not match any argument of @{name}")
    return args


def run_function(
    module: ModuleOp, name: str, given: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    executor = Executor(module)
    if name not in executor.functions:
        raise ToolError(
            f"no function @{name} in the module (found: "
            f"{', '.join('@' + f for f in executor.functions)})"
        )
    function = executor.functions[name]
    args = bind_arguments(function, given)
    results = executor.run(name, args)
    outputs = {
        f"arg{i}": value for i, value in enumerate(args) if isinstance(value, np.ndarray)
    }
    outputs.update({f"result{i}": np.asarray(value) for i, value in enumerate(results)})
    return outputs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tapeflow-run", description="Run a function with the reference executor."
    )
    parser.add_argument("file", help="module to run (.mlir)")
    parser.add_argument("--function", required=True, help="function name, without @")
    parser.add_argument("--inputs", help="arguments as arg0, arg1, ... (.npz)")
    parser.add_argument("--out", required=True, help="where to write the outputs (.npz)")
    args = parser.parse_args(argv)
    with reported_errors("tapeflow-run"):
        module = load_module(args.file)
        given: dict[str, np.ndarray] = {}
        if args.inputs:
            try:
                with np.load(args.inputs) as data:
                    given = {k: data[k] for k in data.files}
            except (OSError, ValueError) as err:
                raise ToolError(f"cannot read inputs {args.inputs}: {err}") from None
        try:
            outputs = run_function(module, args.function, given)
        except ExecutionError as err:
            raise ToolError(str(err)) from None
        np.savez(args.out, **outputs)


if __name__ == "__main__":
    main()
