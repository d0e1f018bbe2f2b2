"""
The kernels a sweep names, checked: built-in ones at an existing size, a user's
kernel as `tapeflow-sim` checks its FILE, --function and --inputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from tapeflow_benchmarks.harness.points import KernelSource
from tapeflow_benchmarks.harness.sweep.plan import SweepKernel
from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
from tapeflow_benchmarks.kernels import PRESETS as SIZES
from tapeflow_tools.diagnostics import ToolError


def _user_kernel(where: str, entry: Any, base: Path, taken: set[str]) -> SweepKernel:
    """A user's kernel, checked as tapeflow-sim checks its FILE, --function and
    --inputs."""
    from xdsl.dialects import func
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from lowering.tapeflow_enzyme import TapeflowEnzymePass
    from tapeflow_tools.arguments import (
        bind_arguments,
        check_simulable,
        function_name,
        gradients_of,
        load_inputs,
        load_module,
    )
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import format_parse_error
    from tapeflow_tools.memory_map import argument_addresses, read_memory_map

    if entry.size is not None:
        raise ToolError(f"{where}.size: a size is for a built-in kernel; a file is read as it is")
    if entry.function is None:
        raise ToolError(
            f"{where}.function: missing (the gradient, or the caller of enzyme.autodiff, to run)"
        )
    path = base / entry.file
    name = entry.name or Path(entry.file).stem
    if name in KERNELS:
        raise ToolError(
            f"{where}.name: '{name}' is a built-in kernel's name; name the file's kernel "
            "otherwise (name: ...)"
        )
    if name in taken:
        raise ToolError(f"{where}.name: a second kernel named '{name}'")
    if not path.is_file():
        raise ToolError(f"{where}.file: {path}: no such file")
    try:
        module = load_module(str(path))
    except ToolError as err:
        raise ToolError(f"{where}.file: {err}") from None
    except ParseError as err:
        raise ToolError(f"{where}.file: {format_parse_error(err)}") from None
    except DiagnosticException as err:
        raise ToolError(f"{where}.file: {err}") from None
    function = function_name(entry.function)  # `@f` as tapeflow-sim takes it
    gradients = gradients_of(module, function)
    if gradients:
        raise ToolError(
            f"{where}.function: @{function} is the primal function, which "
            f"{', '.join('@' + g for g in gradients)} differentiates; a sweep runs a "
            "gradient: name one of those"
        )
    try:  # a memref.global, or a function that runs no gradient
        check_simulable(module, function, "a sweep")
    except ToolError as err:
        raise ToolError(f"{where}.function: {str(err).partition(': ')[2]}") from None
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    if function not in functions:  # perhaps Enzyme's diffe<name>: differentiate to see
        try:
            TapeflowEnzymePass().apply(make_context(), module)
        except Exception as err:  # noqa: BLE001 - Enzyme's own diagnostic, located
            raise ToolError(f"{where}.file: {err}") from None
        functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    if function not in functions:
        raise ToolError(
            f"{where}.function: no function @{function} in {path} (found: "
            f"{', '.join('@' + f for f in functions) or 'none'})"
        )
    inputs = b""
    inputs_path = None
    arrays: dict[str, Any] = {}
    if entry.inputs is not None:
        inputs_path = str(base / entry.inputs)
        arrays = load_inputs(inputs_path, option=f"{where}.inputs")
    warnings: list[str] = []
    try:
        bound = bind_arguments(functions[function], arrays, warnings.append)
    except ToolError as err:
        given = f"{where}.inputs {inputs_path}" if inputs_path else f"{where} (no inputs)"
        raise ToolError(f"{given}: {err}") from None
    if inputs_path is not None:
        for warning in warnings:
            print(f"tapeflow-bench: warning: {where}.inputs {inputs_path}: {warning}")
        inputs = Path(inputs_path).read_bytes()
    addresses: tuple[int | None, ...] = ()
    if entry.addresses is not None:
        given = entry.addresses
        what = f"{where}.addresses"
        if isinstance(given, str):
            what = f"{where}.addresses {base / given}"
            given = read_memory_map(base / given, f"{where}.addresses")
        addresses = tuple(argument_addresses(functions[function], bound, given, what))
    text = path.read_text(encoding="utf-8")
    digest = hashlib.sha256()
    for part in (text.encode(), b"\0", function.encode(), b"\0", inputs):
        digest.update(part)
    if addresses:
        digest.update(b"\0" + repr(addresses).encode())
    source = KernelSource(str(path), function, digest.hexdigest(), text, inputs, addresses)
    return SweepKernel(name, "", source, inputs_path)


def sweep_kernels(sweep_path: Path, spec: Any) -> list[SweepKernel]:
    base = sweep_path.parent
    found: list[SweepKernel] = []
    taken: set[str] = set()
    for index, entry in enumerate(spec.kernels):
        where = f"{sweep_path}: kernels[{index}]"
        if entry.file is not None:
            kernel = _user_kernel(where, entry, base, taken)
        else:
            if entry.name is None:
                raise ToolError(f"{where}: name a built-in kernel (name: ...) or give a file")
            for extra in ("function", "inputs", "addresses"):
                if getattr(entry, extra) is not None:
                    raise ToolError(
                        f"{where}.{extra}: only a user's kernel (with file: ...) has one"
                    )
            if entry.name not in KERNELS:
                raise ToolError(
                    f"{where}.name: unknown kernel '{entry.name}' (built-in: {', '.join(KERNELS)}; "
                    "a kernel of your own is given by file, function and inputs)"
                )
            size = entry.size or spec.size
            if size not in SIZES:
                what = f"{where}.size" if entry.size else f"{sweep_path}: size"
                raise ToolError(f"{what}: unknown size '{size}' (choose from {', '.join(SIZES)})")
            if entry.name in taken and any(k.size == size for k in found if k.name == entry.name):
                raise ToolError(f"{where}: {entry.name} at size {size} is named twice")
            kernel = SweepKernel(entry.name, size)
        taken.add(kernel.name)
        found.append(kernel)
    return found


__all__ = ["sweep_kernels"]
