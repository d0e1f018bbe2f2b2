"""
The scratchpad's streams in time (the `cgra` model): when each tile's transfer
is issued, when it completes, and what the layers wait for.

The scratchpad is a ring of `capacity` 8-byte entries. Each layer run takes its
tile's entries (`TimingRecorder.tiles`) from the ring and gives them back. One
DRAM channel moves the streams in order, at the DRAM bandwidth.

- A FWD layer takes its entries when it starts (stalled until that many entries
  are free) and gives them back once its FWD stream, issued when the layer ends,
  has read them out. A stream that grows a slab tape first opens its DRAM page,
  a DRAM latency from its issue, before its bytes move.
- A REV layer's stream fills its tile before the layer may read it. The stream
  engine knows every REV stream in advance (they mirror the FWD streams, Pass 3)
  and each entry has a full/empty bit, so with `runahead` the stream is issued as
  soon as the tile's entries are free, up to as many tiles ahead as the ring
  holds; without, no earlier than the start of the previous REV layer (one layer
  ahead, as the paper's streams at the head of each REV layer). Either way no
  earlier than the REV sweep and the stream before it; its data arrive the DRAM
  latency after issue, at the bandwidth. The layer waits (a stream stall) for
  whatever has not arrived when it would start; its entries are freed when it ends.

The distance a stream was issued ahead is the number of REV tiles still resident
when it was issued (1: one layer ahead; 0: nothing overlapped it). Times are in
cycles from the start of the run; a stall is added to the window in which it
happens and shifts every later window. What follows from this (a tile that fills
the whole ring waits its whole transfer): docs/DESIGN.md, "Timing models".
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil
from typing import NamedTuple

import numpy as np


class Transfer(NamedTuple):
    """One stream's transfer, in cycles from the start of the run."""

    direction: str
    """'fwd' (a spill) or 'rev' (a preload)."""
    issued: float
    moving: float
    """When its bytes start to move over the DRAM channel."""
    done: float
    """When its bytes have moved (a REV tile has arrived; a FWD tile is in DRAM
    the latency later)."""
    nbytes: int
    window: int
    """The window that ends with the stream op."""


@dataclass(frozen=True)
class StreamTimes:
    stalled: np.ndarray
    """Cycles each window waited for the scratchpad (a REV tile not yet arrived,
    or no free entries for a FWD tile)."""
    refilled: np.ndarray
    """Cycles a window's pipeline took to fill again after the stall before it."""
    transfers: tuple[Transfer, ...]
    """Every stream transfer, in issue order."""
    prefetch_distance: float
    """Mean over REV streams of the REV tiles still resident when it was issued."""


class _Clock:
    """Window start times as stalls are added: each window's start without
    stalls, plus the cycles added to the windows before it. The additions are
    kept as windows in ascending order with running totals; stalls come almost
    always in window order, so an addition is an append and a start a binary
    search (an addition before the last one shifts the totals after it)."""

    def __init__(self, spent: np.ndarray):
        self.base = np.concatenate([[0], np.cumsum(spent, dtype=np.int64)]).tolist()
        self.windows: list[int] = []
        """The windows that took more cycles, ascending."""
        self.totals: list[int] = []
        """Cycles added to those windows and the ones before them."""

    def start(self, window: int) -> int:
        """The start of `window` (the end of the run for `len(spent)`): its base
        plus the cycles added to the windows before it."""
        i = bisect_left(self.windows, window)
        return self.base[window] + (self.totals[i - 1] if i else 0)

    def add(self, window: int, cycles: int) -> None:
        """`window` takes `cycles` more (every later window starts later)."""
        windows, totals = self.windows, self.totals
        if not windows or window > windows[-1]:
            windows.append(window)
            totals.append((totals[-1] if totals else 0) + cycles)
            return
        i = bisect_left(windows, window)
        if windows[i] != window:
            windows.insert(i, window)
            totals.insert(i, totals[i - 1] if i else 0)
        for j in range(i, len(totals)):
            totals[j] += cycles


def stream_times(
    spent: np.ndarray,
    tiles: Sequence[Sequence[int]],
    kernels: np.ndarray,
    refill: np.ndarray,
    capacity: int,
    latency: int,
    bytes_per_cycle: float,
    rev_start: int,
    runahead: bool = True,
    transfers: bool = True,
) -> StreamTimes:
    """
    Place the streams of `tiles` (`TimingRecorder.tiles`: [rev, entries, first
    window, first window after, stream window or -1, bytes, cycles of pages its
    FWD stream opens]) over windows that
    take `spent` cycles each (without stalls). `kernels` are the kernel windows,
    ascending; `refill[w]` is what kernel window `w` costs more when a stall
    since the kernel window before it drained its pipeline (0 where nothing is
    lost); `rev_start` is the first window of the REV sweep. Without `transfers`
    the result holds no `Transfer`s (`StreamTimes.transfers` empty): only a
    timeline reads them, and a `Transfer` per tile is a third of the time here
    on a run of 131 k layer runs (LeNet's TapeFlow variant).
    """
    n = spent.size
    if not tiles:  # no layer (the Enzyme variants): nothing streams, nothing waits
        return StreamTimes(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), (), 0.0)
    clock = _Clock(spent)
    kernel_list = kernels.tolist()
    stalled = np.zeros(n, dtype=np.int64)
    refilled = np.zeros(n, dtype=np.int64)
    resident: deque[tuple[float, int, bool]] = deque()  # (freed at, entries, rev)
    occupied = 0
    resident_rev = 0  # REV tiles among them
    channel = 0.0  # when the DRAM channel has finished the transfers issued so far
    last_issue = 0.0
    previous_rev_start = -1.0
    made: list[Transfer] = []
    distances: list[int] = []

    def stall(window: int, cycles: int, at_start: bool) -> None:
        """`window` waits `cycles`, at its start or at its end; the next kernel
        loop (`window` itself if the wait is at its start) fills again."""
        if cycles <= 0:
            return
        stalled[window] += cycles
        clock.add(window, cycles)
        after = (bisect_left if at_start else bisect_right)(kernel_list, window)
        if after < len(kernel_list):
            j = kernel_list[after]
            if refill[j] > refilled[j]:  # the pipeline fills again once
                clock.add(j, int(refill[j] - refilled[j]))
                refilled[j] = refill[j]

    # `clock.start` inline below (a tile asks up to four starts): a window's base
    # plus the cycles added to the windows before it.
    base, added, totals = clock.base, clock.windows, clock.totals
    popleft, push = resident.popleft, resident.append
    # Most windows asked for come after every window that took more so far:
    # their addition is the last total, without a search.
    last_added, tail = -1, 0

    for rev, entries, first, after, stream, nbytes, opening in tiles:
        if entries > capacity:
            entries = capacity
        transfer = nbytes / bytes_per_cycle
        preload = rev and stream >= 0
        if preload:  # from the REV sweep's start and the stream before it
            at = float(
                base[rev_start]
                + (
                    tail
                    if rev_start > last_added
                    else (totals[i - 1] if (i := bisect_left(added, rev_start)) else 0)
                )
            )
            if last_issue > at:
                at = last_issue
            if not runahead and previous_rev_start >= 0 and previous_rev_start > at:
                at = previous_rev_start
        else:  # when the layer would start
            begin = base[first] + (
                tail
                if first > last_added
                else (totals[i - 1] if (i := bisect_left(added, first)) else 0)
            )
            at = float(begin)
        # The earliest time from `at` at which `entries` entries are free.
        while resident and (resident[0][0] <= at or occupied + entries > capacity):
            freed, size, was_rev = popleft()
            occupied -= size
            resident_rev -= was_rev
            if freed > at:
                at = freed
        if preload:
            need = base[stream + 1] + (
                tail
                if stream + 1 > last_added
                else (totals[i - 1] if (i := bisect_left(added, stream + 1)) else 0)
            )
            distances.append(resident_rev)
            arrival = at + latency
            if channel > arrival:
                arrival = channel
            arrival += transfer
            if transfers:
                made.append(Transfer("rev", at, arrival - transfer, arrival, nbytes, stream))
            channel = arrival
            last_issue = at
            if arrival > need:
                stall(stream, ceil(arrival - need), at_start=False)
                last_added, tail = added[-1], totals[-1]
            previous_rev_start = float(
                base[first]
                + (
                    tail
                    if first > last_added
                    else (totals[i - 1] if (i := bisect_left(added, first)) else 0)
                )
            )
            freed = float(
                base[after]
                + (
                    tail
                    if after > last_added
                    else (totals[i - 1] if (i := bisect_left(added, after)) else 0)
                )
            )
            push((freed, entries, True))
            occupied += entries
            resident_rev += 1
            continue
        if at > begin:  # a stall at the window's start leaves its start as it was
            stall(first, ceil(at - begin), at_start=True)
            last_added, tail = added[-1], totals[-1]
        if rev:
            previous_rev_start = float(begin)
        if stream >= 0:  # a FWD stream reads the tile out when the layer ends
            issued = float(
                base[stream + 1]
                + (
                    tail
                    if stream + 1 > last_added
                    else (totals[i - 1] if (i := bisect_left(added, stream + 1)) else 0)
                )
            )
            moving = max(channel, issued + opening)  # after its slab's page opens
            channel = moving + transfer
            if transfers:
                made.append(Transfer("fwd", issued, moving, channel + latency, nbytes, stream))
            freed = channel
        else:
            freed = float(
                base[after]
                + (
                    tail
                    if after > last_added
                    else (totals[i - 1] if (i := bisect_left(added, after)) else 0)
                )
            )
        push((freed, entries, bool(rev)))
        occupied += entries
        resident_rev += bool(rev)
    distance = float(np.mean(distances)) if distances else 0.0
    return StreamTimes(stalled, refilled, tuple(made), distance)


__all__ = ["StreamTimes", "Transfer", "stream_times"]
