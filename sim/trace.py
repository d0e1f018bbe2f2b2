"""
Memory address traces of a run, for the cache model.

Every buffer the program touches gets a simulated base address the first time it
is touched (a bump allocator, aligned to a page, so that distinct buffers never
share a cache line): function arguments, `memref.alloc/alloca` buffers, Enzyme's
struct-of-arrays tapes (one buffer each) and array-of-structs regions (one buffer).
A view (`memref.subview`) is located inside its buffer through numpy's own
pointers and strides, so its addresses are exactly those of the buffer's elements.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

import numpy as np

PAGE = 4096


@dataclass
class MemoryTrace:
    """Accesses in program order: address, write?, tape?."""

    addresses: array = field(default_factory=lambda: array("q"))
    writes: array = field(default_factory=lambda: array("b"))
    tape: array = field(default_factory=lambda: array("b"))
    _bases: dict[int, int] = field(default_factory=dict)
    _next: int = PAGE
    _keep: list[np.ndarray] = field(default_factory=list)

    def _base_array(self, arr: np.ndarray) -> np.ndarray:
        while isinstance(arr.base, np.ndarray):
            arr = arr.base
        return arr

    def _simulated_base(self, owner: np.ndarray) -> int:
        pointer = owner.ctypes.data
        base = self._bases.get(pointer)
        if base is None:
            base = self._next
            self._bases[pointer] = base
            self._keep.append(owner)  # keeps the pointer from being reused
            self._next += -(-max(owner.nbytes, 1) // PAGE) * PAGE
        return base

    def record(self, arr: np.ndarray, where: tuple[int, ...], write: bool, tape: bool) -> None:
        owner = self._base_array(arr)
        offset = arr.ctypes.data - owner.ctypes.data
        offset += sum(i * s for i, s in zip(where, arr.strides))
        self.addresses.append(self._simulated_base(owner) + offset)
        self.writes.append(write)
        self.tape.append(tape)

    def __len__(self) -> int:
        return len(self.addresses)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.frombuffer(self.addresses, dtype=np.int64),
            np.frombuffer(self.writes, dtype=np.int8).astype(bool),
            np.frombuffer(self.tape, dtype=np.int8).astype(bool),
        )
