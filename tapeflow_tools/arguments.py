"""
The inputs and outputs of `tapeflow-run` and `tapeflow-sim`: reading the module,
reading the `--inputs` archive, binding its arrays to a function's arguments, and
writing the `--out` archive.

Every check names the file or the argument at fault. What cannot be right is
refused (a `.npy` or corrupt archive, text, complex numbers, non-integer values
for an integer argument, integers that do not fit the argument's type); what is
valid but suspicious gets a warning (NaN or infinite values, floats given for an
integer argument, booleans, integers that a float64 cannot hold exactly).
"""

from __future__ import annotations

import io
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    SymbolRefAttr,
)
from xdsl.ir import Attribute

from sim.storage import allocation_bytes, too_large
from tapeflow_dialects.enzyme import GRADIENT_OF, AutoDiffOp
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import (
    ToolError,
    decode_source,
    verify_located,
)
from tapeflow_tools.frontend import parse_module_text

Warn = Callable[[str], None]


def function_name(text: str) -> str:
    """An argparse type for `--function`: the name with or without MLIR's `@`."""
    return text.removeprefix("@")


def load_module(path: str) -> ModuleOp:
    """Parse and verify a module file with located diagnostics."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise ToolError(f"cannot read {path}: {err.strerror}") from None
    module = parse_module_text(make_context(), decode_source(data, path), path)
    verify_located(module)
    return module


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")


def load_inputs(path: str, option: str = "--inputs") -> dict[str, np.ndarray]:
    """The arrays of an `.npz` archive (as written by `np.savez`), read eagerly so
    that a damaged member is reported here, naming the file and the member."""
    where = f"{option} {path}"
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as err:
        raise ToolError(f"{where}: cannot read it: {err.strerror}") from None
    if head.startswith(_NPY_MAGIC):
        raise ToolError(
            f"{where}: is a .npy file (one array); the inputs are an .npz archive with "
            "one array per argument, arg0, arg1, ... (np.savez(path, arg0=..., ...))"
        )
    if not head.startswith(_ZIP_MAGICS):
        raise ToolError(f"{where}: is not an .npz archive (np.savez writes one)")
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            for key in data.files:
                try:
                    arrays[key] = data[key]
                except ValueError as err:
                    if "allow_pickle" in str(err):
                        raise ToolError(
                            f"{where}: member {key} holds Python objects (a pickled "
                            "array), which are not read; give numeric arrays"
                        ) from None
                    raise ToolError(f"{where}: member {key} cannot be read: {err}") from None
                except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as err:
                    raise ToolError(f"{where}: member {key} is damaged: {err}") from None
    except ToolError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as err:
        raise ToolError(f"{where}: is not a readable .npz archive: {err}") from None
    return arrays


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """`arrays` as the bytes of an `.npz` archive (written by the caller, at exactly
    the path given: no `.npz` is appended)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


_INT64 = (-(2**63), 2**63 - 1)


def _integer_range(element: Attribute) -> tuple[int, int]:
    """The values an integer argument can take: int64 for `index`; for a signless
    iN, the signed and the unsigned readings of N bits."""
    if isinstance(element, IntegerType):
        width = element.width.data
        return -(2 ** (width - 1)) if width > 1 else 0, 2**width - 1
    return _INT64


def _first(mask: np.ndarray) -> str:
    """Where the first True of `mask` is, as `[i, j]`, or '' for a 0-d array."""
    if mask.ndim == 0:
        return ""
    index = tuple(int(i) for i in np.argwhere(mask)[0])
    return f" (first at [{', '.join(map(str, index))}])"


def _convert(value: np.ndarray, element: Attribute, what: str, warn: Warn | None) -> np.ndarray:
    """`value` as int64 or float64 for an argument of element type `element`."""
    kind = value.dtype.kind
    if kind in "USOVMm":
        described = {
            "U": "text",
            "S": "bytes",
            "O": "Python objects",
            "V": "records",
            "M": "dates",
            "m": "time spans",
        }[kind]
        raise ToolError(f"{what} holds {described} (dtype {value.dtype}), not numbers")
    if kind == "c":
        raise ToolError(
            f"{what} holds complex numbers (dtype {value.dtype}); the argument is real ({element})"
        )
    if kind not in "biuf":
        raise ToolError(f"{what} has an unsupported dtype {value.dtype}")
    if kind == "b" and warn:
        warn(f"{what} holds booleans; they are read as 0 and 1")
    if isinstance(element, IndexType | IntegerType):
        if kind == "f":
            finite = np.isfinite(value)
            if not finite.all():
                raise ToolError(
                    f"{what} holds NaN or infinite values{_first(~finite)}, but the "
                    f"argument is an integer ({element})"
                )
            fractional = value != np.floor(value)
            if fractional.any():
                raise ToolError(
                    f"{what} holds non-integer values{_first(fractional)}, but the "
                    f"argument is an integer ({element})"
                )
        if value.size:
            low, high = _integer_range(element)
            least, most = value.min(), value.max()
            if least < low or most > high:
                bad = (value < low) | (value > high)
                raise ToolError(
                    f"{what} holds values outside the range of {element} "
                    f"[{low}, {high}]{_first(bad)}"
                )
        if kind == "f" and warn:
            warn(
                f"{what} holds floats (dtype {value.dtype}) for an integer argument "
                f"({element}); they are read as integers"
            )
        return np.array(value, dtype=np.int64, copy=True)
    if not isinstance(element, AnyFloat):
        raise ToolError(f"{what}: arguments of type {element} are not supported")
    if kind in "iu" and value.size and np.abs(value.astype(object)).max() > 2**53 and warn:
        warn(f"{what} holds integers beyond 2^53, which float64 cannot hold exactly")
    converted = np.array(value, dtype=np.float64, copy=True)
    if warn:
        nan = int(np.isnan(converted).sum())
        inf = int(np.isinf(converted).sum())
        if nan or inf:
            parts = [f"{n} {label}" for n, label in ((nan, "NaN"), (inf, "infinite")) if n]
            warn(f"{what} holds {' and '.join(parts)} value{'s' if nan + inf > 1 else ''}")
    return converted


def _shape_matches(given: tuple[int, ...], declared: tuple[int, ...]) -> bool:
    """A `?` extent of the argument's type takes any extent of the array."""
    return len(given) == len(declared) and all(
        d == DYNAMIC_INDEX or d < 0 or g == d for g, d in zip(given, declared, strict=True)
    )


def bind_arguments(
    function: func.FuncOp, given: dict[str, np.ndarray], warn: Warn | None = None
) -> list[Any]:
    """Turn the npz arrays into the function's arguments, checking each one;
    `warn` (if given) hears about suspicious but valid values."""
    name = function.sym_name.data
    args: list[Any] = []
    for index, arg_type in enumerate(function.function_type.inputs.data):
        key = f"arg{index}"
        what = f"input {key} of @{name}"
        if isinstance(arg_type, MemRefType):
            shape = tuple(arg_type.get_shape())
            element = arg_type.element_type
            dynamic = any(d == DYNAMIC_INDEX or d < 0 for d in shape)
            if key not in given:
                if dynamic:
                    raise ToolError(
                        f"{what} (a {arg_type}) is missing: a buffer of dynamic shape "
                        "cannot be zero-filled, give its contents"
                    )
                integral = isinstance(element, IndexType | IntegerType)
                refused = too_large(allocation_bytes(shape))
                if refused is not None:  # checked before numpy tries (and fails) to allocate
                    raise ToolError(
                        f"{what} (a {arg_type}) is missing, and zero-filling it {refused}"
                    )
                args.append(np.zeros(shape, dtype=np.int64 if integral else np.float64))
                continue
            array = np.asarray(given[key])
            if not _shape_matches(array.shape, shape):
                raise ToolError(f"{what} has shape {array.shape}, but the argument is {arg_type}")
            args.append(_convert(array, element, what, warn))
        else:
            if key not in given:
                raise ToolError(f"{what} (a {arg_type}) is missing")
            value = np.asarray(given[key])
            if value.shape != ():
                raise ToolError(f"{what} must be a 0-d array (a {arg_type})")
            converted = _convert(value, arg_type, what, warn)
            integral = isinstance(arg_type, IndexType | IntegerType)
            args.append(int(converted) if integral else float(converted))
    extra = sorted(set(given) - {f"arg{i}" for i in range(len(args))})
    if extra:
        raise ToolError(f"inputs {', '.join(extra)} do not match any argument of @{name}")
    return args


def _not_a_function(module: ModuleOp, name: str) -> str | None:
    """What @name is if it is a symbol of the module but not a function."""
    for op in module.ops:
        if isinstance(op, memref.GlobalOp) and op.sym_name.data == name:
            constant = "a constant table" if op.constant is not None else "a global buffer"
            return f"@{name} is a memref.global ({constant} of type {op.type}), not a function"
    return None


def check_function(module: ModuleOp, name: str) -> func.FuncOp:
    """The function `--function` names, or an error listing the module's."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    other = _not_a_function(module, name)
    if other:
        raise ToolError(
            f"--function {name}: {other}; name one of the functions: "
            f"{', '.join('@' + f for f in functions) or 'none'}"
        )
    if name not in functions:
        raise ToolError(
            f"--function {name}: no function @{name} in the module (found: "
            f"{', '.join('@' + f for f in functions) or 'none'})"
        )
    return functions[name]


def gradients_of(module: ModuleOp, name: str) -> list[str]:
    """The functions that hold the gradient of @name, if the module differentiates
    it (Enzyme's `diffe<name>`, or the callers of `enzyme.autodiff @name`), in
    module order; empty if @name is not a primal (or is its own gradient)."""
    found: list[str] = []
    for function in module.ops:
        if not isinstance(function, func.FuncOp):
            continue
        primal = function.attributes.get(GRADIENT_OF)
        differentiates = isinstance(primal, SymbolRefAttr) and primal.root_reference.data == name
        differentiates |= any(
            isinstance(op, AutoDiffOp) and op.fn.root_reference.data == name
            for op in function.walk()
        )
        if differentiates:
            found.append(function.sym_name.data)
    return [] if name in found else found


def simulable_functions(module: ModuleOp) -> list[str]:
    """The functions that run a gradient, in module order: a gradient Enzyme made
    (`tapeflow.gradient_of`), a function that holds an `enzyme.autodiff`, and a
    function that calls one of these (directly or through others)."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    found = {
        f.sym_name.data
        for f in functions
        if GRADIENT_OF in f.attributes or any(isinstance(op, AutoDiffOp) for op in f.walk())
    }
    grew = True
    while grew:
        before = len(found)
        found |= {
            f.sym_name.data
            for f in functions
            if any(
                isinstance(op, func.CallOp) and op.callee.root_reference.data in found
                for op in f.walk()
            )
        }
        grew = len(found) > before
    return [f.sym_name.data for f in functions if f.sym_name.data in found]


def check_simulable(module: ModuleOp, name: str, tool: str) -> None:
    """Refuse a `--function` that names no gradient: a memref.global, or a
    function that neither is a gradient nor calls one (simulating it would
    measure no tape at all). The message lists what can be named."""
    choices = ", ".join("@" + f for f in simulable_functions(module)) or "none"
    other = _not_a_function(module, name)
    if other:
        raise ToolError(
            f"--function {name}: {other}; {tool} simulates a gradient: name one of {choices}"
        )
    if name in simulable_functions(module):
        return
    if any(isinstance(op, func.FuncOp) and op.sym_name.data == name for op in module.ops):
        raise ToolError(
            f"--function {name}: @{name} is neither a gradient nor a function that calls "
            f"one (through enzyme.autodiff or a call); {tool} simulates a gradient: "
            f"name one of {choices}"
        )


def stderr_warning(tool: str) -> Warn:
    """A `Warn` that prints `tool: warning: ...` on stderr."""

    def warn(message: str) -> None:
        print(f"{tool}: warning: {message}", file=sys.stderr)

    return warn


__all__ = [
    "bind_arguments",
    "check_function",
    "check_simulable",
    "function_name",
    "gradients_of",
    "load_inputs",
    "load_module",
    "npz_bytes",
    "simulable_functions",
    "stderr_warning",
]
