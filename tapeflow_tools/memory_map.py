"""
A user's memory map: where a kernel's caller arguments sit in the simulated memory
(`tapeflow-sim --addresses FILE`, a sweep kernel's `addresses:`), as the built-in
`artifact` kernels' `Kernel.artifact.memory_map` places theirs.

The file (YAML 1.2 or JSON, `targets.structured_text`) maps an argument, by
position (`arg0`, `arg1`, ...) or by its name in the MLIR (`x`, `d_x` for
`%x`, `%d_x`), to a byte address: an integer (`0x80C00000` in YAML) or, for JSON,
a string of one (`"0x80C00000"`). Each address is checked before anything runs:
the argument exists and is a buffer, no argument is named twice, the address is
a non-negative multiple of 8 within the simulated address space, and no two
buffers overlap (their sizes from the bound inputs). The machine must keep a
program's memory map (`placement.heap`, which `--model salam` sets to the
authors' `malloc` base); every other buffer is then taken from the heap, stepping
over the arguments (`sim.trace.MemoryTrace.place`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func

from tapeflow_tools.diagnostics import ToolError
from targets.field_domains import DOMAINS
from targets.hardware import Hardware

ADDRESS_LIMIT = int(DOMAINS["placement.heap"].high)
"""The simulated address space: addresses and buffers end below it."""


def read_memory_map(path: str | Path, where: str) -> dict[str, Any]:
    """The mapping in `path` as written (checked for shape only); `where` names
    the option or sweep key in messages."""
    from targets.structured_text import StructuredTextError, load_path

    try:
        data = load_path(path)
    except OSError as err:
        raise ToolError(f"{where} {path}: cannot read it: {err.strerror}") from None
    except UnicodeDecodeError:
        raise ToolError(f"{where} {path}: is not a UTF-8 text file") from None
    except StructuredTextError as err:
        raise ToolError(f"{where}: {err}") from None
    if not isinstance(data, dict) or not data:
        raise ToolError(
            f"{where} {path}: a memory map is a mapping of arguments (arg0, ... or their "
            "names) to byte addresses, e.g. {x: 0x80c00000, d_x: 0x80c01000}"
        )
    return data


def _address(value: Any, what: str) -> int:
    if isinstance(value, str):
        try:
            value = int(value, 0)
        except ValueError:
            raise ToolError(f"{what}: '{value}' is not an address (an integer)") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{what}: {value!r} is not an address (an integer)")
    if value < 0 or value % 8:
        raise ToolError(f"{what}: {value:#x} is not a non-negative multiple of 8 bytes")
    return value


def argument_addresses(
    function: func.FuncOp, args: Sequence[Any], given: Mapping[str, Any], where: str
) -> list[int | None]:
    """Per argument of `function` (bound to `args`), its address in `given` (None:
    none); a `ToolError` naming `where` and the entry for an unknown or scalar
    argument, one named twice, a bad address or two buffers that overlap."""
    name = function.sym_name.data
    names = [f"arg{i}" for i in range(len(args))]
    blocks = function.body.blocks
    hints = [arg.name_hint for arg in blocks[0].args] if blocks else [None] * len(args)
    known = ", ".join(n + (f" ({h})" if h else "") for n, h in zip(names, hints, strict=True))
    addresses: list[int | None] = [None] * len(args)
    keys: list[str | None] = [None] * len(args)
    for key, value in given.items():
        key = str(key).removeprefix("%")
        position = names.index(key) if key in names else None
        if position is None and key in hints:
            position = hints.index(key)
        if position is None:
            raise ToolError(f"{where}: {key}: no argument of @{name} (its arguments: {known})")
        what = f"{where}: {key}"
        if keys[position] is not None:
            raise ToolError(f"{what}: arg{position} already has an address ({keys[position]})")
        if not isinstance(args[position], np.ndarray):
            raise ToolError(
                f"{what}: arg{position} of @{name} is a scalar "
                f"({function.function_type.inputs.data[position]}), not a buffer"
            )
        keys[position] = key
        addresses[position] = _address(value, what)
    placed = sorted(
        (address, address + max(np.asarray(args[i]).nbytes, 1), keys[i])
        for i, address in enumerate(addresses)
        if address is not None
    )
    for (start, end, key), (next_start, next_end, other) in zip(placed, placed[1:], strict=False):
        if next_start < end:
            raise ToolError(
                f"{where}: {key} [{start:#x}, {end:#x}) and {other} [{next_start:#x}, "
                f"{next_end:#x}) overlap"
            )
    if placed and placed[-1][1] > ADDRESS_LIMIT:
        start, end, key = placed[-1]
        raise ToolError(f"{where}: {key} [{start:#x}, {end:#x}) ends beyond {ADDRESS_LIMIT:#x}")
    return addresses


def check_kept(hardware: Hardware, where: str) -> None:
    """Refuse a memory map on a machine that packs every buffer from
    `placement.base` (`placement.heap` 0), where it would be ignored."""
    if not hardware.placement.heap:
        raise ToolError(
            f"{where}: this machine packs every buffer from placement.base and keeps no "
            "program's memory map (placement.heap is 0): run it under --model salam, or "
            "give the heap for the other buffers (placement.heap=N)"
        )


__all__ = ["argument_addresses", "check_kept", "read_memory_map"]
