"""
The layout rule of the gradient tape: one 8-byte word per value.

Every value the tape holds -- an element of a struct-of-arrays tape
(`!tape.tape`), a slot of an array-of-structs region (`!region.region`), an entry
of a scratchpad tile (`!layer.spad`) and an entry a stream moves to or from the
DRAM tape (`!stream.tape`) -- takes one 8-byte word, whatever its type: i1, i8,
i16, i32, i64, index, f16, bf16, f32 and f64 alike (narrower values are widened
into the word, and come back as the same value). So:

- a region's struct of `n` slots is `8 n` bytes, slot `s` at byte `8 s`;
- a scratchpad tile of `r x n` entries is `8 r n` bytes, one full/empty bit per
  entry (the paper's scratchpad of 64-bit words);
- a DRAM stream tape for a region holds its `8 n` bytes per element, and a
  `stream.fwd`/`stream.rev` of `r` rows moves `8 r n` bytes;
- DRAM byte counts, the simulator's addresses (its storage keeps every scalar in
  an 8-byte numpy element), its stream traffic and the energy of that traffic
  count the same words.

The rule is the scratchpad's (the paper's 64-bit entries), applied everywhere so
that no stage sizes the tape differently from another: packing an i1 into a bit
in DRAM while the scratchpad holds a word per value is exactly what made a
stream overflow its DRAM tape. Types wider than a word (i128, f128, vectors,
memrefs) cannot be tape values; the tape and region verifiers reject them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute

SLOT_BYTES = 8
"""Bytes one tape value occupies in every container (tape, region, scratchpad,
stream tape)."""


def slot_problem(value_type: Attribute) -> str | None:
    """Why a value of `value_type` cannot be held in one tape word, or None."""
    if isinstance(value_type, IndexType):
        return None
    if isinstance(value_type, IntegerType):
        width = value_type.width.data
    elif isinstance(value_type, AnyFloat):
        width = value_type.bitwidth
    else:
        return f"{value_type} is not a scalar integer, index or float type"
    if width > SLOT_BYTES * 8:
        return f"{value_type} is {width} bits wide, more than one {SLOT_BYTES}-byte tape word"
    return None


def slot_bytes(value_type: Attribute) -> int:
    """Bytes a tape value of `value_type` occupies: one word (`SLOT_BYTES`)."""
    problem = slot_problem(value_type)
    if problem is not None:
        raise ValueError(f"no tape layout for {problem}")
    return SLOT_BYTES
