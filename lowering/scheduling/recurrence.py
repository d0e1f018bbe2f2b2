"""
The recurrence bound on a modulo schedule's initiation interval: no iteration can
start sooner after the previous one than its longest loop-carried dependence cycle
takes (an `iter_args` recurrence, or a store feeding the next iteration's load).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue

from lowering.scheduling.body import Conflicts, LoopBody
from targets.costs import op_latency
from targets.hardware import Hardware

_UNREACHED = -(2**40)
"""A path length no path has: the table entry of an op a source does not reach
(latency sums stay far below 2**40, so it stays negative)."""

_TABLE_ENTRIES = 1 << 22
"""Entries of the recurrence bound's (op x source) table per batch of sources (32
MB of int64): a fully unrolled body's hundreds of sources over ten thousand ops
take a few batches, each one pass over the body's rows."""


def iteration_edges(body: LoopBody, hardware: Hardware) -> list[list[tuple[int, int]]]:
    """Per op of `body`, the ops of the same iteration it waits for (by position),
    each with the cycles after its issue: a producer of an operand its latency
    (`body.latencies`: `body` read for `hardware`); a store before an access that
    may meet it a cycle, a load before such a store none."""
    latencies = body.latencies  # each op's `op_latency` on `hardware`
    preds = [[(m, latencies[m]) for m in inputs] for inputs in body.inputs]
    stores, loads = Conflicts(), Conflicts()
    for n in range(len(body.ops)):
        key = body.keys[n]
        if key is not None:
            if (m := stores.latest(key)) >= 0:
                preds[n].append((m, 1))
            if body.stores[n] and (m := loads.latest(key)) >= 0:
                preds[n].append((m, 0))
            (stores if body.stores[n] else loads).note(key, n)
    return preds


def recurrence_mii(
    body: LoopBody, carried: list[tuple[SSAValue, SSAValue]], hardware: Hardware
) -> int:
    """
    The recurrence bound on ii: for every loop-carried edge from `p` (this
    iteration) to `c` (the next), the longest latency path from `c` to `p`
    within an iteration plus `p`'s latency. Routing is not counted here; the
    scheduler adds it.

    Edges run forward in program order, so the longest paths from every source
    `c` are one pass over the body; the sources go through it together, a batch
    at a time, as the columns of a (op x source) table.
    """
    ops = body.ops
    index = {op: n for n, op in enumerate(ops)}
    preds = iteration_edges(body, hardware)
    # Per source `c`: the producers `p` its back edges come from, and the
    # extras. A producer before its consumer is not reached from it within an
    # iteration, so only those at or after it count.
    back: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

    def edges_to(c: int, ps: np.ndarray, extras: np.ndarray) -> None:
        after = ps >= c
        if after.any():
            back.setdefault(c, []).append((ps[after], extras[after]))

    for block_arg, yielded in carried:
        producer = yielded.owner
        if isinstance(producer, Operation) and producer in index:
            p = np.array([index[producer]])
            extra = np.array([op_latency(producer, hardware)])
            for use in block_arg.uses:
                if use.operation in index:
                    edges_to(index[use.operation], p, extra)
    memory = body.memory
    positions = {
        buffer: np.array([index[s] for s in stores]) for buffer, stores in memory.stores.items()
    }
    for load, (buffer, excluded) in memory.loads.items():
        ps = positions[buffer]
        if excluded:
            ps = ps[~np.isin(ps, [index[s] for s in excluded])]
        edges_to(index[load], ps, np.ones_like(ps))
    if not back:
        return 1
    targets = {
        c: (np.concatenate([p for p, _ in edges]), np.concatenate([e for _, e in edges]))
        for c, edges in back.items()
    }
    pulls = [sorted(set(edges)) for edges in preds]
    sources = sorted(targets)
    bound = 1
    start = 0
    while start < len(sources):
        lo = sources[start]
        # As many sources as keep the table near a million entries.
        hi = max(int(targets[sources[start]][0].max()), lo)
        stop = start + 1
        while stop < len(sources):
            reach = max(hi, int(targets[sources[stop]][0].max()))
            if (reach - lo + 1) * (stop - start + 1) > _TABLE_ENTRIES:
                break
            hi, stop = reach, stop + 1
        batch = sources[start:stop]
        table = np.full((hi - lo + 1, len(batch)), _UNREACHED, dtype=np.int64)
        column = {c: k for k, c in enumerate(batch)}
        for n in range(lo, hi + 1):
            # Row by row, in place: the row of an op with one predecessor in the
            # batch's rows is that row plus its edge's cycles, else the largest
            # of those (numpy's per-call cost, not the columns, dominates).
            inside = [(m - lo, w) for m, w in pulls[n] if m >= lo]
            if inside:
                row = table[n - lo]
                (first, w), *rest = inside
                np.add(table[first], w, out=row)
                for m, w in rest:
                    np.maximum(row, table[m] + w, out=row)
            if n in column:
                table[n - lo, column[n]] = 0
        for c in batch:
            p, extra = targets[c]
            lengths = table[p - lo, column[c]]
            reached = lengths >= 0
            if reached.any():
                bound = max(bound, int((lengths[reached] + extra[reached]).max()))
        start = stop
    return bound
