"""
The scratchpad's streams in time (`sim.models.streams`) and the grid's
configuration loads (`sim.models.cgra`), on hand-built runs whose stalls are
computed by hand from the rules the modules state.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim.models import WindowTable
from sim.models.cgra import CGRA
from sim.models.streams import stream_times
from targets.hardware import PRESETS

L = 100
"""DRAM latency of the hand-built runs (cycles)."""
T = 30
"""Compute cycles of one layer."""
FAST = 1e12
"""A bandwidth at which transfers take no time."""


def rev_layers(n: int, entries: int, nbytes: int = 0) -> tuple[np.ndarray, list[list[int]]]:
    """`n` REV layers, each a stream window (0 cycles) then a compute window (T)."""
    spent = np.array([0, T] * n, dtype=np.int64)
    tiles = [[1, entries, 2 * i, 2 * i + 2, 2 * i, nbytes, 0] for i in range(n)]
    return spent, tiles


@pytest.mark.parametrize("ahead", [0, 1, 2, 3, 4])
def test_a_stream_issued_k_tiles_ahead_waits_what_the_latency_exceeds(ahead: int) -> None:
    """With room for the current tile and `ahead` more, tiles 1..ahead are issued
    at once and arrive with the first; tile ahead+1 waits for tile 0's entries,
    freed when layer 0 ends, so it waits max(0, L - ahead*T)."""
    spent, tiles = rev_layers(ahead + 2, 8)
    times = stream_times(
        spent,
        tiles,
        np.array([], dtype=np.int64),
        np.zeros_like(spent),
        capacity=8 * (ahead + 1),
        latency=L,
        bytes_per_cycle=FAST,
        rev_start=0,
    )
    assert times.stalled[0] == L  # nothing overlaps the first tile
    assert list(times.stalled[2 : 2 * ahead + 2 : 2]) == [0] * ahead
    assert times.stalled[2 * ahead + 2] == max(0, L - ahead * T)
    assert times.stalled.sum() == L + max(0, L - ahead * T)


def test_without_tiles_nothing_streams_or_waits() -> None:
    """A run without layers (the Enzyme variants): no window stalls or fills
    again, no transfer, a prefetch distance of 0."""
    spent = np.array([5, 7, 3], dtype=np.int64)
    times = stream_times(
        spent,
        [],
        np.array([0, 2], dtype=np.int64),
        np.array([4, 0, 4], dtype=np.int64),
        capacity=8,
        latency=L,
        bytes_per_cycle=FAST,
        rev_start=1,
    )
    assert times.stalled.tolist() == [0, 0, 0]
    assert times.refilled.tolist() == [0, 0, 0]
    assert times.transfers == ()
    assert times.prefetch_distance == 0.0


def test_a_tile_that_fills_the_scratchpad_is_not_double_buffered() -> None:
    """A 64-entry tile in a 64-entry scratchpad: each REV tile is fetched only
    once the previous layer has ended, and waits the whole transfer."""
    nbytes = 512
    bw = 9.6
    spent, tiles = rev_layers(3, 64, nbytes)
    times = stream_times(
        spent,
        tiles,
        np.array([], dtype=np.int64),
        np.zeros_like(spent),
        capacity=64,
        latency=L,
        bytes_per_cycle=bw,
        rev_start=0,
    )
    whole = int(np.ceil(L + nbytes / bw))
    assert list(times.stalled[::2]) == [whole, whole, whole]
    assert times.prefetch_distance == 0.0


def test_a_fwd_tile_that_fills_the_scratchpad_waits_for_the_drain() -> None:
    """FWD layers of a full tile: the next layer takes its entries once the FWD
    stream has read the previous tile out (its bytes at the bandwidth)."""
    bw, nbytes = 8.0, 512
    spent = np.array([T, 0] * 3, dtype=np.int64)
    tiles = [[0, 64, 2 * i, 2 * i + 2, 2 * i + 1, nbytes, 0] for i in range(3)]
    full = stream_times(
        spent,
        tiles,
        np.array([], dtype=np.int64),
        np.zeros_like(spent),
        capacity=64,
        latency=L,
        bytes_per_cycle=bw,
        rev_start=spent.size,
    )
    drain = nbytes / bw  # 64 cycles, longer than a layer's 30
    assert list(full.stalled[[2, 4]]) == [int(drain), int(drain)]
    double = stream_times(
        spent,
        tiles,
        np.array([], dtype=np.int64),
        np.zeros_like(spent),
        capacity=128,
        latency=L,
        bytes_per_cycle=bw,
        rev_start=spent.size,
    )
    # Two tiles fit: layer 2 waits for layer 0's drain only, done at 30 + 64 = 94,
    # while layer 2 would start at 60; the channel then drains layer 1's tile.
    assert double.stalled[2] == 0
    assert double.stalled[4] == 94 - 60


def test_a_fwd_stream_that_opens_a_slab_page_waits_for_it_off_the_cgra() -> None:
    """The FWD layers above, two tiles fitting: layer 1's stream grows a slab tape
    and first opens its page, L cycles from its issue at 60 (the end of layer 1),
    so its tile is read out from 160 to 224. Layer 2 (at 60) waits only for layer
    0's drain (94, as above); layer 3 (at 90 + 34) for layer 1's tile, out at 224.
    The windows pay no page of their own: with room for every tile, none waits."""
    bw, nbytes = 8.0, 512
    spent = np.array([T, 0] * 4, dtype=np.int64)
    tiles = [[0, 64, 2 * i, 2 * i + 2, 2 * i + 1, nbytes, L * (i == 1)] for i in range(4)]

    def timed(capacity: int) -> np.ndarray:
        times = stream_times(
            spent,
            tiles,
            np.array([], dtype=np.int64),
            np.zeros_like(spent),
            capacity=capacity,
            latency=L,
            bytes_per_cycle=bw,
            rev_start=spent.size,
        )
        return times.stalled

    assert list(timed(128)[[2, 4, 6]]) == [0, 94 - 60, 224 - (90 + 34)]
    assert not timed(64 * 4).any()  # room for every tile: no layer waits


def test_without_runahead_a_stream_is_issued_one_layer_ahead() -> None:
    """Room for every tile, but streams issued no earlier than the start of the
    previous REV layer: layer 1 is issued at 0 (arrives at L, needed at L + T),
    layer 2 at layer 1's start L + T (arrives at 2L + T, needed at L + 2T)."""
    spent, tiles = rev_layers(3, 8)
    times = stream_times(
        spent,
        tiles,
        np.array([], dtype=np.int64),
        np.zeros_like(spent),
        capacity=64,
        latency=L,
        bytes_per_cycle=FAST,
        rev_start=0,
        runahead=False,
    )
    assert list(times.stalled[::2]) == [L, 0, L - T]
    assert times.prefetch_distance == pytest.approx(2 / 3)  # 0, 1, 1 tiles resident
    ahead = stream_times(
        spent,
        tiles,
        np.array([], dtype=np.int64),
        np.zeros_like(spent),
        capacity=64,
        latency=L,
        bytes_per_cycle=FAST,
        rev_start=0,
    )
    assert list(ahead.stalled[::2]) == [L, 0, 0]


def test_after_a_stall_the_next_kernel_loop_fills_its_pipeline_again() -> None:
    spent, tiles = rev_layers(2, 64)
    kernels = np.array([1, 3])
    refill = np.array([0, 0, 0, 7])
    times = stream_times(
        spent,
        tiles,
        kernels,
        refill,
        capacity=64,
        latency=L,
        bytes_per_cycle=FAST,
        rev_start=0,
    )
    assert times.stalled[2] == L  # the full tile waits again
    assert list(times.refilled) == [0, 0, 0, 7]


def windows(kernel_ids: list[int], ops: list[int]) -> WindowTable:
    """Kernel windows of one trip, 10 cycles each, of the given kernels."""
    n = len(kernel_ids)
    zero = np.zeros(n, dtype=np.int64)
    return WindowTable(
        kernel=np.ones(n, dtype=bool),
        compute=np.full(n, 10),
        access_latency=zero,
        hits=zero,
        misses=zero,
        writebacks=zero,
        dram_bytes=zero,
        rev_stream_bytes=zero,
        trips=np.ones(n, dtype=np.int64),
        ii=np.full(n, 10),
        length=np.full(n, 10),
        tiled=np.zeros(n, dtype=bool),
        kernel_id=np.array(kernel_ids),
        layer=zero,
        spad_accesses=zero,
        memory_ops=zero,
        stream_write_bytes=zero,
        stream_read_bytes=zero,
        rev=np.zeros(n, dtype=bool),
        kernel_ops=np.array(ops),
        looped=np.ones(n, dtype=bool),
        tiles=np.zeros((0, 6), dtype=np.int64),
        start=zero,
        end=zero,
        access_hit=np.zeros(0, dtype=bool),
        plans=(None,) * (max(kernel_ids) + 1),
    )


def test_a_configuration_is_loaded_once_per_kernel_switch() -> None:
    """Kernels 1, 1, 2, 1 of 5, 5, 3, 5 placed ops on a grid that keeps no
    configuration: it loads kernel 1, then 2, then 1 again (three switches, the
    first from nothing), one cycle per op."""
    hardware = replace(PRESETS["Enzyme32k"], config_contexts=0)
    assert hardware.config_cycles_per_op == 1
    cycles = CGRA.cycles(windows([1, 1, 2, 1], [5, 5, 3, 5]), hardware)
    assert cycles.config == 5 + 3 + 5
    assert list(cycles.spent) == [15, 10, 13, 15]


def test_a_held_configuration_is_not_loaded_again() -> None:
    """With 32 words a PE (512 in all) both kernels stay held: 1 is loaded once."""
    cycles = CGRA.cycles(windows([1, 1, 2, 1], [5, 5, 3, 5]), PRESETS["Enzyme32k"])
    assert cycles.config == 5 + 3
    # One word a PE (16 in all): kernel 2 (10 words) evicts kernel 1 (10 words).
    small = replace(PRESETS["Enzyme32k"], config_contexts=1)
    assert CGRA.cycles(windows([1, 2, 1], [10, 10, 10]), small).config == 30
    # A kernel larger than the whole memory is loaded at every switch to it.
    assert CGRA.cycles(windows([1, 2, 1], [20, 3, 20]), small).config == 20 + 3 + 20


def _placed_by_clock(
    spent: np.ndarray,
    tiles: list[list[int]],
    kernels: np.ndarray,
    refill: np.ndarray,
    capacity: int,
    latency: int,
    bytes_per_cycle: float,
    rev_start: int,
    runahead: bool,
) -> tuple[list[int], list[int], list[tuple[object, ...]], float]:
    """The rules of `sim.models.streams` as its docstring states them, every
    window start asked of `_Clock.start` (a search each): the yardstick of
    `stream_times`, which reads most starts without one."""
    from collections import deque
    from math import ceil

    from sim.models.streams import _Clock

    n = spent.size
    clock = _Clock(spent)
    stalled, refilled = [0] * n, [0] * n
    kernel_list = kernels.tolist()
    resident: deque[tuple[float, int, bool]] = deque()
    occupied = resident_rev = 0
    channel = last_issue = 0.0
    previous_rev_start = -1.0
    transfers: list[tuple[object, ...]] = []
    distances: list[int] = []

    def stall(window: int, cycles: int, at_start: bool) -> None:
        stalled[window] += cycles
        clock.add(window, cycles)
        found = [k for k in kernel_list if (k >= window if at_start else k > window)]
        if found and refill[found[0]] > refilled[found[0]]:
            clock.add(found[0], int(refill[found[0]] - refilled[found[0]]))
            refilled[found[0]] = int(refill[found[0]])

    for rev, entries, first, after, stream, nbytes, opening in tiles:
        entries = min(entries, capacity)
        transfer = nbytes / bytes_per_cycle
        preload = bool(rev) and stream >= 0
        begin = clock.start(first)
        if preload:
            at = max(float(clock.start(rev_start)), last_issue)
            if not runahead and previous_rev_start >= 0:
                at = max(at, previous_rev_start)
        else:
            at = float(begin)
        while resident and (resident[0][0] <= at or occupied + entries > capacity):
            freed, size, was_rev = resident.popleft()
            occupied -= size
            resident_rev -= was_rev
            at = max(at, freed)
        if preload:
            need = clock.start(stream + 1)
            distances.append(resident_rev)
            arrival = max(at + latency, channel) + transfer
            transfers.append(("rev", at, arrival - transfer, arrival, nbytes, stream))
            channel, last_issue = arrival, at
            if arrival > need:
                stall(stream, ceil(arrival - need), at_start=False)
            previous_rev_start = float(clock.start(first))
            resident.append((float(clock.start(after)), entries, True))
        else:
            if at > begin:
                stall(first, ceil(at - begin), at_start=True)
            if rev:
                previous_rev_start = float(begin)
            if stream >= 0:
                issued = float(clock.start(stream + 1))
                moving = max(channel, issued + opening)
                channel = moving + transfer
                transfers.append(("fwd", issued, moving, channel + latency, nbytes, stream))
                freed = channel
            else:
                freed = float(clock.start(after))
            resident.append((freed, entries, bool(rev)))
        occupied += entries
        resident_rev += bool(rev)
    distance = float(np.mean(distances)) if distances else 0.0
    return stalled, refilled, transfers, distance


@pytest.mark.parametrize("seed", range(40))
def test_stream_times_reads_window_starts_as_the_clock_gives_them(seed: int) -> None:
    """Random runs of FWD then REV layers (with and without streams, slab pages,
    kernel loops that fill again, tiles larger than the ring, stalls that land
    before windows that already took more): `stream_times` gives the stalls,
    refills, transfers and prefetch distance that asking `_Clock.start` for
    every window start gives, with and without its transfers."""
    rng = np.random.default_rng(seed)
    layers = int(rng.integers(1, 40))
    spent_list: list[int] = []
    tiles: list[list[int]] = []
    for i in range(2 * layers):
        rev = int(i >= layers)
        first = len(spent_list)
        spent_list += rng.integers(0, 80, int(rng.integers(1, 4))).tolist()
        stream = len(spent_list) - 1 if rng.random() < 0.8 else -1
        entries = int(rng.integers(1, 96))
        nbytes = int(rng.integers(0, 1024))
        opening = int(rng.choice([0, 0, 0, L]))
        tiles.append([rev, entries, first, len(spent_list), stream, nbytes, opening])
    spent = np.array(spent_list, dtype=np.int64)
    kernels = np.flatnonzero(rng.random(spent.size) < 0.5)
    refill = np.zeros(spent.size, dtype=np.int64)
    refill[kernels] = rng.integers(0, 20, kernels.size)
    rev_start = tiles[layers][2]
    for capacity, bw, runahead in ((64, 8.0, True), (128, 2.5, False), (32, FAST, True)):
        args = (spent, tiles, kernels, refill, capacity, L, bw, rev_start, runahead)
        stalled, refilled, transfers, distance = _placed_by_clock(*args)
        for made in (True, False):
            times = stream_times(
                spent,
                tiles,
                kernels,
                refill,
                capacity=capacity,
                latency=L,
                bytes_per_cycle=bw,
                rev_start=rev_start,
                runahead=runahead,
                transfers=made,
            )
            assert times.stalled.tolist() == stalled
            assert times.refilled.tolist() == refilled
            assert times.prefetch_distance == distance
            assert [tuple(t) for t in times.transfers] == (transfers if made else [])
