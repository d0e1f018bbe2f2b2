"""
Memory address traces of a run, for the cache model.

Every buffer the program touches gets a simulated base address the first time it
is touched (a bump allocator from `base`, each buffer aligned to `alignment`:
`targets.hardware.PlacementConfig`, by default packed at 64 B, one cache line, so
that distinct buffers never share a line; 4096 gives page alignment), unless it was
placed first (`place`: an argument at the address its program names; then the
allocator starts at `heap` and steps over the placed ranges): function arguments,
`memref.alloc/alloca` buffers, Enzyme's struct-of-arrays tapes (one buffer each) and
array-of-structs regions (one buffer). A view (`memref.subview`) is located inside its buffer
through numpy's own pointers and strides, so its addresses are exactly those of the buffer's
elements.

An access is stored as one integer, `address << 2 | write << 1 | tape`, so that
recording it is a single append (the compiled kernel loops of
`sim/kernel_compiler.py` compute that integer directly); `arrays()` unpacks it.
A compiled loop whose addresses are affine in its induction variable records a
run of it as one block instead (`defer`): one marker entry in `packed` stands for
the run's entries until `resolved` computes the whole trace in numpy. Lengths of
`packed` read during the run (the timing windows') are positions of the whole
trace by `full_positions`.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate
from math import prod
from typing import Any

import numpy as np

from sim.cache import LoopRuns

PAGE = 4096

DRAM_ROLES = ("primal", "shadow", "tape")
"""Whom DRAM traffic belongs to, by role number (`MemoryTrace.roles`): the
function's own arrays, the gradient arrays (the shadows Enzyme's gradient
takes), and the tape (Enzyme's cache buffers, tape ops, streamed tiles)."""
PRIMAL, SHADOW, TAPE = range(len(DRAM_ROLES))


@dataclass
class MemoryTrace:
    """Accesses in program order: address, write?, tape?, packed in one integer."""

    packed: array = field(default_factory=lambda: array("q"))
    """Per access: `address << 2 | write << 1 | tape`; per deferred run, one
    marker entry (`resolved` gives the whole trace)."""
    base: int = PAGE
    """Simulated address of the first buffer."""
    alignment: int = 64
    """Every buffer starts at a multiple of this (a power of two)."""
    heap: int = 0
    """Where the allocator starts once a buffer was placed (`place`); 0: `base`."""
    _placed: list[tuple[int, int]] = field(default_factory=list)
    """(start, end) of the placed buffers' address ranges."""
    _bases: dict[int, int] = field(default_factory=dict)
    _next: int = -1
    _keep: list[np.ndarray] = field(default_factory=list)
    _tape_owners: set[int] = field(default_factory=set)
    _shadow_owners: set[int] = field(default_factory=set)
    _views: dict[int, tuple[np.ndarray, int, tuple[int, ...], tuple[int, ...], bool]] = field(
        default_factory=dict
    )
    slabs: list[tuple[int, int]] = field(default_factory=list)
    """Stream-tape slabs placed in the simulated DRAM: (base address, bytes)."""
    deferred: list[tuple[DeferredLoop, array, array]] = field(default_factory=list)
    """Per compiled loop that records its runs as blocks (`defer`): how, its
    runs, and its other accesses' entries."""
    _full: tuple[tuple[int, int], np.ndarray] | None = None
    """The whole trace (`resolved`), with the lengths of `packed` and of the
    runs it was made from."""
    _buffer_table: tuple[tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = None
    """`_buffers`, with the numbers of buffers and shadows it was made from."""
    _marks: (
        tuple[tuple[int, int], list[tuple[DeferredLoop, np.ndarray, array]], np.ndarray] | None
    ) = None
    """`_markers`, with the lengths it was made from."""

    def mark_tape(self, arr: np.ndarray) -> None:
        """Count every later access of this buffer as tape traffic (Enzyme's
        cache buffers, which the baseline keeps as memrefs)."""
        owner = self._base_array(arr)
        self._simulated_base(owner)
        self._tape_owners.add(owner.ctypes.data)
        self._views.clear()

    def mark_shadow(self, arr: np.ndarray) -> None:
        """The buffer of `arr` is a gradient array (a shadow argument of a
        gradient function): its traffic is `shadow` (`roles`)."""
        self._shadow_owners.add(self._base_array(arr).ctypes.data)

    def roles(self, addresses: np.ndarray, tape: np.ndarray) -> np.ndarray:
        """Per access (as `arrays()` gives them), its role (`DRAM_ROLES`): tape if
        it is tape traffic, else shadow if its buffer was marked one, else primal."""
        bases, role = self._buffers()
        # the role of the buffer each address falls in (the last base at or
        # below it; none, before the first: primal)
        roles = role[np.searchsorted(bases, addresses, side="right")]
        roles[tape] = TAPE
        return roles

    def _buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """The buffers' simulated bases, ascending (in the order they were given
        theirs where two are equal), and the role of the addresses before the
        first and from each (`PRIMAL`, `SHADOW` where it is a shadow); kept
        until a buffer is added or marked (the report asks once per cache)."""
        key = (len(self._bases), len(self._shadow_owners))
        if self._buffer_table is not None and self._buffer_table[0] == key:
            return self._buffer_table[1]
        pointers = sorted(self._bases, key=self._bases.__getitem__)  # stable: as numpy's
        bases = np.array([self._bases[p] for p in pointers], dtype=np.int64)
        role = [PRIMAL] + [SHADOW if p in self._shadow_owners else PRIMAL for p in pointers]
        table = (bases, np.array(role, dtype=np.int8))
        self._buffer_table = (key, table)
        return table

    def _base_array(self, arr: np.ndarray) -> np.ndarray:
        while isinstance(arr.base, np.ndarray):
            arr = arr.base
        return arr

    def _simulated_base(self, owner: np.ndarray) -> int:
        return self.base_of(owner, owner.ctypes.data)

    def place(self, arr: np.ndarray, address: int) -> None:
        """Put the buffer of `arr` at `address` (before anything is recorded); a
        `ValueError` if it is placed already or would overlap a placed buffer."""
        owner = self._base_array(arr)
        end = address + max(owner.nbytes, 1)
        if owner.ctypes.data in self._bases:
            raise ValueError(f"a buffer is placed twice (at {address:#x})")
        for start, stop in self._placed:
            if address < stop and start < end:
                raise ValueError(
                    f"the buffer at {address:#x} ({owner.nbytes} bytes) overlaps the one "
                    f"at {start:#x} ({stop - start} bytes)"
                )
        self._bases[owner.ctypes.data] = address
        self._keep.append(owner)
        self._placed.append((address, end))

    def _free_at(self, size: int, alignment: int) -> int:
        """The allocator's next base for `size` bytes: aligned, past the placed
        ranges it would overlap."""
        base = -(-self._next // alignment) * alignment
        moved = True
        while moved:
            moved = False
            for start, stop in self._placed:
                if base < stop and start < base + size:
                    base = -(-stop // alignment) * alignment
                    moved = True
        return base

    def base_of(self, owner: np.ndarray, pointer: int) -> int:
        """The simulated base of the buffer `owner` (whose data is at `pointer`),
        given to it now if it has none yet."""
        base = self._bases.get(pointer)
        if base is None:
            if self._next < 0:
                self._next = self.heap if self._placed and self.heap else self.base
            size = max(owner.nbytes, 1)
            base = self._free_at(size, self.alignment)
            self._bases[pointer] = base
            self._keep.append(owner)  # keeps the pointer from being reused
            self._next = base + -(-size // self.alignment) * self.alignment
        return base

    def _describe(
        self, arr: np.ndarray
    ) -> tuple[np.ndarray, int, tuple[int, ...], tuple[int, ...], bool]:
        owner = self._base_array(arr)
        owner_pointer = owner.ctypes.data
        start = self._simulated_base(owner) + arr.ctypes.data - owner_pointer
        entry = (arr, start, arr.strides, arr.shape, owner_pointer in self._tape_owners)
        if len(self._views) > 65536:  # views of finished loops: forget them
            self._views.clear()
        self._views[id(arr)] = entry
        return entry

    def record(self, arr: np.ndarray, where: tuple[int, ...], write: bool, tape: bool) -> None:
        """One access of element `where` of `arr` (out-of-range ones are skipped:
        the access itself reports them)."""
        entry = self._views.get(id(arr))
        if entry is None or entry[0] is not arr:
            entry = self._describe(arr)
        _, address, strides, shape, owner_tape = entry
        for i, stride, extent in zip(where, strides, shape, strict=False):
            if not 0 <= i < extent:
                return
            address += i * stride
        if len(where) != len(shape):
            return
        self.packed.append(address << 2 | bool(write) << 1 | bool(tape or owner_tape))

    def place_slab(self, slab: np.ndarray, nbytes: int) -> int:
        """Give a stream-tape slab of `nbytes` its own page-aligned range of the
        simulated DRAM and record it (`slabs`); returns its base. Streams bypass
        the cache, so no access of the trace goes to it: the layout is what the
        trace keeps of it."""
        base = self._free_at(max(nbytes, 1), PAGE)  # buffers before it may be packed
        self._next = base + -(-max(nbytes, 1) // PAGE) * PAGE
        self._keep.append(slab)
        self.slabs.append((base, nbytes))
        return base

    def packed_base(self, owner: np.ndarray, pointer: int) -> int:
        """`base << 2 | tape` of the buffer `owner` (data at `pointer`): the packed
        access of its element at byte offset `b` is this plus `b << 2 | write << 1`."""
        return self.base_of(owner, pointer) << 2 | (pointer in self._tape_owners)

    def __len__(self) -> int:
        return len(self.resolved())

    def defer(self, loop: DeferredLoop) -> tuple[array, array]:
        """The arrays a compiled loop records its runs in (`DeferredLoop`): the
        runs, and the packed entries of its accesses that are not affine."""
        runs, entries = array("q"), array("q")
        self.deferred.append((loop, runs, entries))
        return runs, entries

    def _markers(self) -> tuple[list[tuple[DeferredLoop, np.ndarray, array]], np.ndarray]:
        """(per deferred loop with runs: it, its runs' records, its other accesses'
        entries; per position of `packed`, the entries the markers before it
        stand for beyond their one), kept until more is recorded."""
        key = self._recorded()
        if self._marks is not None and self._marks[0] == key:
            return self._marks[1], self._marks[2]
        loops, positions, extra = [], [], []
        few = len(self.packed) <= FEW_ENTRIES
        grown = [0] * (len(self.packed) + 1) if few else []
        for loop, runs, entries in self.deferred:
            if runs:
                records = np.array(runs, dtype=np.int64).reshape(-1, 4 + loop.columns)
                loops.append((loop, records, entries))
                if few:  # the same sums in Python: a few markers
                    width, columns = len(loop.k), 4 + loop.columns
                    for at, trips in zip(runs[::columns], runs[2::columns], strict=True):
                        grown[at + 1] = trips * width - 1
                    continue
                positions.append(records[:, 0])
                extra.append(records[:, 2] * len(loop.k) - 1)
        if few:
            shift = np.array(list(accumulate(grown)), dtype=np.int64)
        else:
            shift = np.zeros(len(self.packed) + 1, dtype=np.int64)
            if loops:
                shift[np.concatenate(positions) + 1] = np.concatenate(extra)
                np.cumsum(shift, out=shift)
        self._marks = (key, loops, shift)
        return loops, shift

    def _recorded(self) -> tuple[int, int]:
        """The lengths of `packed` and of the runs recorded so far."""
        return len(self.packed), sum(len(runs) for _, runs, _ in self.deferred)

    def full_positions(self, lengths: np.ndarray) -> np.ndarray:
        """`lengths` of `packed` (as read during the run; -1: none) as positions
        of the whole trace: each marker before them counts its run's entries."""
        if not any(runs for _, runs, _ in self.deferred):
            return lengths
        _, shift = self._markers()
        return np.where(lengths < 0, lengths, lengths + shift[np.maximum(lengths, 0)])

    def full_position_list(self, lengths: list[int]) -> list[int]:
        """`full_positions` of a few lengths, as Python integers (a report of
        few windows: `sim.timing.plain_windows`)."""
        if not any(runs for _, runs, _ in self.deferred):
            return list(lengths)
        _, shift = self._markers()
        at = shift.item
        return [n if n < 0 else n + at(n) for n in lengths]

    def loop_runs(self) -> list[LoopRuns]:
        """The deferred loops' runs as positions of the whole trace (the cache
        replay reasons about them in bulk: `sim.cache.LoopRuns`)."""
        loops, shift = self._markers()
        return [
            LoopRuns(
                records[:, 0] + shift[records[:, 0]],
                records[:, 2],
                len(loop.k),
                tuple(c >= 0 for c in loop.k),
            )
            for loop, records, _ in loops
        ]

    def resolved(self) -> np.ndarray:
        """Every access's packed entry, the deferred runs' computed in place of
        their markers (kept until more is recorded)."""
        key = self._recorded()
        if self._full is not None and self._full[0] == key:
            return self._full[1]
        full = self._resolve()
        self._full = (key, full)
        return full

    def _resolve(self) -> np.ndarray:
        """`resolved`, computed anew (a new array) and not kept."""
        packed = (
            np.frombuffer(self.packed, dtype=np.int64) if self.packed else np.zeros(0, np.int64)
        )
        loops, shift = self._markers()
        if not loops:
            full = packed.copy()
        else:
            full = np.empty(packed.size + int(shift[-1]), dtype=np.int64)
            if packed.size <= FEW_ENTRIES:  # each entry recorded one by one, in Python
                moved = shift.tolist()
                markers = set()
                for _, records, _ in loops:
                    markers.update(records[:, 0].tolist())
                for at, entry in enumerate(self.packed):
                    if at not in markers:
                        full[at + moved[at]] = entry
            else:
                kept = np.ones(packed.size, dtype=bool)
                for _, records, _ in loops:
                    kept[records[:, 0]] = False
                full[np.flatnonzero(kept) + shift[:-1][kept]] = packed[kept]
            for loop, records, entries in loops:
                markers = records[:, 0].copy()
                records[:, 0] += shift[markers]  # where the run's entries start
                loop.fill(full, records, np.array(entries, dtype=np.int64))
                records[:, 0] = markers
        del packed  # before `packed` grows again
        return full

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(addresses, writes, tape flags), one entry per access. Unless `resolved`
        is kept, the entries are computed anew and the addresses unpacked in their
        place: a run's trace is not held twice."""
        key = self._recorded()
        if self._full is not None and self._full[0] == key:
            packed = self._full[1]
            low = packed.astype(np.uint8)  # the flags, modulo 256: one pass over the entries
            addresses = packed >> 2
        else:
            addresses = self._resolve()
            low = addresses.astype(np.uint8)
            np.right_shift(addresses, 2, out=addresses)
        return addresses, ((low >> 1) & 1).view(bool), (low & 1).view(bool)


@dataclass(frozen=True)
class AccessRoles:
    """Each access's role (`MemoryTrace.roles`), computed only for the accesses
    asked about: the report needs the first access of each line alone."""

    trace: MemoryTrace
    addresses: np.ndarray
    tape: np.ndarray

    def __getitem__(self, positions: np.ndarray) -> np.ndarray:
        """The roles of the accesses at `positions`."""
        return self.trace.roles(self.addresses[positions], self.tape[positions])

    def all(self) -> np.ndarray:
        """Every access's role."""
        return self.trace.roles(self.addresses, self.tape)


Term = tuple[int, tuple[int, ...]]
"""`coefficient * the product of the named columns` of a run's record."""

Expr = tuple[Any, ...]
"""A flat index computed from the induction variable and loop-invariant values
(`DeferredLoop.computed`): `("iv",)`, `("col", column)`, `("add" | "sub" | "mul",
a, b)`, `("cmp", predicate, width, a, b)` (an `arith.cmpi` predicate name) or
`("select", condition, a, b)`. Every value in it is bounded far inside 64 bits,
so numpy's int64 computes what Python's integers do."""

_COMPARE = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def evaluate(
    expr: Expr,
    iv: np.ndarray,
    column: Callable[[int], np.ndarray],
    memo: dict[Expr, np.ndarray] | None = None,
) -> np.ndarray:
    """`expr` for the induction variable's values `iv`, `column(c)` giving the
    record's column `c` (broadcast against `iv`); `memo` keeps the values of
    its parts for other expressions of the same values."""
    memo = {} if memo is None else memo
    known = memo.get(expr)
    if known is not None:
        return known
    kind = expr[0]
    if kind == "iv":
        value = iv
    elif kind == "col":
        value = column(expr[1])
    elif kind == "select":
        chosen = evaluate(expr[1], iv, column, memo).astype(bool)
        value = np.where(
            chosen, evaluate(expr[2], iv, column, memo), evaluate(expr[3], iv, column, memo)
        )
    elif kind == "cmp":
        predicate, width = expr[1], expr[2]
        a, b = evaluate(expr[3], iv, column, memo), evaluate(expr[4], iv, column, memo)
        if predicate[0] == "u":  # as the semantics table: both masked to the width
            a, b = (
                (x.view(np.uint64) if width == 64 else x & np.int64((1 << width) - 1))
                for x in (a, b)
            )
        value = _COMPARE[predicate[1:] if len(predicate) == 3 else predicate](a, b)
    else:
        a, b = evaluate(expr[1], iv, column, memo), evaluate(expr[2], iv, column, memo)
        value = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[kind](a, b)
    memo[expr] = value
    return value


def _widened(columns: np.ndarray, affine: list[int], width: int) -> np.ndarray:
    """Per run, `columns` (one per affine access) at their accesses' positions
    among `width`, 0 at the others'. A column of the last axis of a run's entries
    written on its own costs a pass over all of them: `fill` computes every
    access at once from these and replaces the accesses that are not affine."""
    widened = np.zeros((len(columns), width), dtype=np.int64)
    widened[:, affine] = columns
    return widened


LONG_COLUMNS = 512
"""`DeferredLoop.fill` writes runs of this many iterations at least, of affine
accesses alone, an access's entries at a time (`_progressions`)."""


def _progressions(
    packed: np.ndarray,
    start: np.ndarray,
    step: np.ndarray,
    last: np.ndarray,
    slope: np.ndarray,
    n: int,
    width: int,
) -> bool:
    """Write each run's entries (`n` iterations of `width` affine accesses, the
    last iteration's entries `last`, their changes per unit of the induction
    variable `slope`) into `packed`, each access's as one arithmetic
    progression (numpy's `arange`, exact in int64) into its strided column:
    on long runs a third of the time of the whole block computed and then
    interleaved (logsum's runs of 10,000 iterations of 3 and 4 accesses:
    26 us against 64 us for the 4). Only where every entry and every change
    over a run fits 64 bits (then `fill`'s int64 arithmetic, exact modulo
    2**64, gives the same); returns whether it wrote them."""
    low, high = -(1 << 63), (1 << 63) - 1
    plans = []
    for at, by, ends, slopes in zip(
        start.tolist(), step.tolist(), last.tolist(), slope.tolist(), strict=True
    ):
        columns = []
        for end, change in zip(ends, slopes, strict=True):
            d = change * by
            first = end - (n - 1) * d
            if not (low <= first <= high and low <= end + d <= high and abs(n * d) <= high):
                return False
            columns.append((first, d, end))
        plans.append((at, columns))
    for at, columns in plans:
        block = packed[at : at + n * width].reshape(n, width)
        for j, (first, d, end) in enumerate(columns):
            if d:
                block[:, j] = np.arange(first, end + d, d, dtype=np.int64)
            else:
                block[:, j] = first
    return True


FEW_ENTRIES = 64
"""A trace of up to this many entries recorded (`MemoryTrace.packed`: its
accesses recorded one by one and its deferred runs' markers) has the markers'
shifts and its entries' places computed in Python (`MemoryTrace._markers`,
`_resolve`): numpy's calls on a few entries cost more than their arithmetic,
several times more after a run, whose Python leaves the caches cold."""


FEW_RUNS = 16
"""`DeferredLoop._affine` takes this many runs at most with Python's integers."""


@dataclass(frozen=True)
class DeferredLoop:
    """
    How the runs of one compiled kernel loop are recorded (`MemoryTrace.defer`).
    The loop makes the same accesses in every iteration. A run appends one
    marker entry for all its entries to `MemoryTrace.packed` and records

        (its marker's position, step, trips, entries appended so far, *columns)

    with `columns` the values after its last iteration of: the flat indices `k`
    of its affine accesses (`sim.kernel_compiler`), their buffers' packed bases,
    and the loop-invariant names their changes per unit of the induction
    variable are sums of products of. The packed entry of affine access j in
    iteration t of a run of `trips` is then

        (k[j] << 5) + base[j] + static[j] + (t - trips + 1) * step * (slope[j] << 5)

    An access whose index is `computed` has its entries computed from the
    record too (`computed`). The other accesses append their entries to an
    array of their own as they run (`entries appended so far` locates a run's).
    """

    k: tuple[int, ...]
    """Per access, its record column of `k`; -1 if it is not affine."""
    base: tuple[int, ...]
    """Per access, its record column of the packed base (-1: not affine)."""
    static: tuple[int, ...]
    """Per access, what it adds to its entry (2 for a write)."""
    slope: tuple[tuple[Term, ...], ...]
    """Per access, its slope as terms (none: its address never moves)."""
    columns: int
    computed: tuple[Expr | None, ...] = ()
    """Per access that is not affine, its flat index if the induction variable
    and loop-invariant values compute it (a `select` of affine values...): its
    entries are computed from the record like the affine ones' (its packed base
    is its `base` column); None (or none given): it appends its entries."""
    start: int = -1
    """The record column of the run's first value of the induction variable
    (-1: no access is `computed`)."""

    def _computed(self) -> list[int]:
        return [j for j, e in enumerate(self.computed) if e is not None]

    def _others(self) -> list[int]:
        """The accesses that append their entries."""
        computed = self._computed()
        return [j for j, c in enumerate(self.k) if c < 0 and j not in computed]

    def _entries(
        self,
        j: int,
        iv: np.ndarray,
        column: Callable[[int], np.ndarray],
        memo: dict[Expr, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Computed access `j`'s entries for the induction variable's values `iv`
        (`memo` as for `evaluate`)."""
        expr = self.computed[j]
        assert expr is not None
        entries = np.left_shift(evaluate(expr, iv, column, memo), 5)  # a new array
        entries += column(self.base[j]) + self.static[j]
        return entries

    def _affine(self, runs: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray]:
        """(the affine accesses, per run and affine access its entry in the
        last iteration, and its change per unit of the induction variable)."""
        affine = [j for j, c in enumerate(self.k) if c >= 0]
        if len(runs) <= FEW_RUNS:
            found = self._affine_of_few(runs, affine)
            if found is not None:
                return affine, *found
        record = runs[:, 4:]
        last = (record[:, [self.k[j] for j in affine]] << 5) + record[
            :, [self.base[j] for j in affine]
        ]
        last += np.array([self.static[j] for j in affine], dtype=np.int64)
        slope = np.zeros_like(last)
        for n, j in enumerate(affine):
            for coefficient, names in self.slope[j]:
                product = np.full(len(runs), coefficient, dtype=np.int64)
                for name in names:
                    product *= record[:, name]
                slope[:, n] += product
        return affine, last, slope << 5

    def _affine_of_few(
        self, runs: np.ndarray, affine: list[int]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """`_affine`'s entries and changes of a few runs, computed with Python's
        integers (numpy's would be a few calls per access and term, each costing
        more than its arithmetic); None if one does not fit 64 bits. Where each
        does, it is what numpy's int64 arithmetic gives, which is exact modulo
        2**64."""
        last, slope = [], []
        for row in runs[:, 4:].tolist():
            last.append(
                [(row[self.k[j]] << 5) + row[self.base[j]] + self.static[j] for j in affine]
            )
            slope.append(
                [
                    sum(a * prod(row[n] for n in names) for a, names in self.slope[j]) << 5
                    for j in affine
                ]
            )
        try:
            shape = (len(runs), len(affine))
            return (
                np.array(last, dtype=np.int64).reshape(shape),
                np.array(slope, dtype=np.int64).reshape(shape),
            )
        except OverflowError:
            return None

    def fill(self, packed: np.ndarray, runs: np.ndarray, appended: np.ndarray) -> None:
        """Write into `packed` every entry of the recorded `runs`, given the
        entries the accesses that are neither affine nor computed `appended`."""
        runs = runs.reshape(-1, 4 + self.columns)
        start, step, trips, end = runs[:, 0], runs[:, 1], runs[:, 2], runs[:, 3]
        record = runs[:, 4:]
        width = len(self.k)
        affine, last, slope = self._affine(runs)
        computed, others = self._computed(), self._others()
        if (trips == trips[0]).all():  # runs of one length: in blocks
            n = int(trips[0])
            if n >= LONG_COLUMNS and not computed and not others:
                if _progressions(packed, start, step, last, slope, n, width):
                    return
            t = np.arange(n, dtype=np.int64)
            back = (t - n + 1)[None, :] * step[:, None]  # the induction variable minus its last
            if len(affine) < width:  # every access in one pass, the others' 0 then replaced
                slope, last = _widened(slope, affine, width), _widened(last, affine, width)
            long = n * width >= 64  # a slice each, else all at once by their positions
            # Long runs per run, access and iteration: numpy's inner loops then
            # run over the iterations, not over the few accesses (logsum's runs of
            # 10,000 iterations of 3 and 4 accesses: twice as fast).
            if long:
                across = np.empty((len(runs), width, n), dtype=np.int64)
                np.multiply(slope[:, :, None], back[:, None, :], out=across)
                across += last[:, :, None]
                values = across.transpose(0, 2, 1)  # per run, iteration and access: a view
            else:
                values = back[:, :, None] * slope[:, None, :]
                values += last[:, None, :]
            if computed:
                iv = record[:, self.start, None] + t[None, :] * step[:, None]
                memo: dict[Expr, np.ndarray] = {}
                for j in computed:
                    values[:, :, j] = self._entries(j, iv, lambda c: record[:, c, None], memo)
            if others:
                rows = (end - n * len(others))[:, None] + t * len(others)
                values[:, :, others] = appended[rows[:, :, None] + np.arange(len(others))]
            if long:
                for at, run_values in zip(start.tolist(), values, strict=True):
                    packed[at : at + n * width].reshape(n, width)[...] = run_values
                return
            positions = start[:, None] + np.arange(n * width)
            packed[positions.reshape(-1)] = values.reshape(-1)
            return
        run = np.repeat(np.arange(len(runs)), trips)
        t = np.arange(run.size) - np.repeat(np.cumsum(trips) - trips, trips)
        values = np.empty((run.size, width), dtype=np.int64)
        back = (t - trips[run] + 1) * step[run]
        values[:, affine] = last[run] + back[:, None] * slope[run]
        if computed:
            iv = record[run, self.start] + t * step[run]
            memo = {}
            for j in computed:
                values[:, j] = self._entries(j, iv, lambda c: record[run, c], memo)
        if others:
            row = (end - trips * len(others))[run] + t * len(others)
            values[:, others] = appended[row[:, None] + np.arange(len(others))]
        positions = (start[run] + t * width)[:, None] + np.arange(width)
        packed[positions.reshape(-1)] = values.reshape(-1)

    def cut(
        self,
        packed: array,
        appended: array,
        record: tuple[int, ...],
        failed: int,
        done: int,
        computed: bool = False,
    ) -> None:
        """A run recorded as `record` (its trips not known) failed in its
        iteration `failed`, after `done` of that iteration's accesses: append
        its entries up to there, before what the failing op recorded itself (as
        a run of the closure executor would have them). A `k` is of iteration
        `failed` if an access among the `done` computed it, or the failing one
        did (`computed`); else of the one before."""
        start, step = record[0], record[1]
        tail = packed[start:]
        del packed[start:]
        others = self._others()
        count = failed * len(others) + sum(j < done for j in others)
        mine = iter(appended[len(appended) - count :])
        del appended[len(appended) - count :]
        values = record[4:]
        anchor = {c: failed - 1 for c in self.k if c >= 0}
        for c in self.k[: done + computed]:
            if c >= 0:
                anchor[c] = failed
        for t in range(failed + 1):
            for j in range(len(self.k) if t < failed else done):
                c = self.k[j]
                if c < 0 and j in others:
                    packed.append(next(mine))
                    continue
                if c < 0:
                    iv = np.array([values[self.start] + t * step], dtype=np.int64)
                    packed.append(int(self._entries(j, iv, lambda n: np.int64(values[n]))[0]))
                    continue
                slope = sum(a * prod(values[n] for n in names) for a, names in self.slope[j])
                moved = (t - anchor[c]) * step * slope
                packed.append((values[c] + moved << 5) + values[self.base[j]] + self.static[j])
        packed.extend(tail)
