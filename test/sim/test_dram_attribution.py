"""
Every byte of DRAM traffic is credited to the buffer it belongs to
(`sim.timing.dram_traffic`): `dram_bytes.primal + shadow + tape == total`.

Hand-computed cases: a trace where a tape access evicts a dirty primal line (the
write-back is the primal line's, not the tape's), a dirty tape line written back
by the final flush (tape traffic: before, it counted in `write` but never in
`tape`), and a kernel whose every line is known: two lines of its own array,
read and overwritten; two of its gradient; a tape of 16 values (two lines).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.cache import _replay, simulate_cache
from sim.timing import dram_traffic
from sim.trace import PRIMAL, SHADOW, TAPE, AccessRoles, MemoryTrace
from tapeflow_tools import tapeflow_sim
from targets.hardware import CacheConfig

LINE = 64
ONE_LINE_CACHE = CacheConfig(size_bytes=LINE, assoc=1, line_bytes=LINE)
KERNEL = Path(__file__).parent / "dram_kernels" / "scale16.mlir"


def _traffic(
    addresses: list[int], writes: list[bool], roles: list[int], config: CacheConfig
) -> list[int]:
    a = np.array(addresses, dtype=np.int64)
    cache = simulate_cache(a, np.array(writes), config)
    return dram_traffic(a, np.array(roles, dtype=np.int8), cache, config.line_bytes)


def test_an_eviction_is_credited_to_the_evicted_line() -> None:
    """A primal store dirties line 0; a tape load of line 1 evicts it (one line
    of cache). Primal: its fetch and its write-back; tape: its fetch only."""
    by_role = _traffic([0, LINE], [True, False], [PRIMAL, TAPE], ONE_LINE_CACHE)
    assert by_role[PRIMAL] == 2 * LINE
    assert by_role[TAPE] == LINE
    assert by_role[SHADOW] == 0


def test_the_final_flush_of_a_dirty_tape_line_is_tape_traffic() -> None:
    """A tape store is the last access: its line is written back at the end."""
    by_role = _traffic([0, LINE], [False, True], [SHADOW, TAPE], ONE_LINE_CACHE)
    assert by_role == [0, LINE, 2 * LINE]  # primal, shadow, tape


def test_both_replays_credit_the_same_lines() -> None:
    """Random traces through a small cache, under the fast replay (true LRU) and
    the one-by-one replay: the same victims, so the same attribution."""
    rng = np.random.default_rng(5)
    addresses = rng.integers(0, 64, 3000) * 8
    writes = rng.random(3000) < 0.4
    roles = (addresses // 192 % 3).astype(np.int8)  # three buffers of 3 lines, repeating
    config = CacheConfig(size_bytes=256, assoc=2, line_bytes=LINE)
    a = simulate_cache(addresses, writes, config)
    b = _replay(addresses >> 6, writes, config, True)
    assert a.victim.tolist() == b.victim.tolist()
    assert dram_traffic(addresses, roles, a, LINE) == dram_traffic(addresses, roles, b, LINE)
    assert sum(dram_traffic(addresses, roles, a, LINE)) == (a.miss_lines + a.writebacks) * LINE


@pytest.mark.parametrize("variant, preset", [("enzyme", "Enzyme32k"), ("tapeflow", "Tflow32k")])
def test_a_kernel_whose_lines_are_known(tmp_path: Path, variant: str, preset: str) -> None:
    """32 KB evicts nothing: each line is fetched once and, if written, written
    back once at the end. x (2 lines, read and overwritten): 4 line transfers;
    dx (2 lines, accumulated): 4; the tape of 16 values (2 lines): through the
    cache, 4 transfers (Enzyme); streamed out and back, 128 B each way (TapeFlow)."""
    report = tmp_path / "r.json"
    tapeflow_sim.main(
        [
            str(KERNEL),
            "--function",
            "scale16_grad",
            "--variant",
            variant,
            "--preset",
            preset,
            "--json",
            str(report),
        ]
    )
    data = json.loads(report.read_text())
    dram = data["dram_bytes"]
    assert data["tape_bytes"] == 16 * 8
    assert dram["primal"] == 4 * LINE
    assert dram["shadow"] == 4 * LINE
    assert dram["tape"] == 4 * LINE
    assert (
        dram["primal"] + dram["shadow"] + dram["tape"]
        == dram["total"]
        == dram["read"] + dram["write"]
    )


def test_roles_asked_for_some_accesses_are_those_of_all() -> None:
    """`AccessRoles` computes the roles of the accesses asked about only: the
    same as every access's (`MemoryTrace.roles`), and the report's attribution
    from them the same. Three buffers, by hand: x primal, dx a shadow, a tape."""
    trace = MemoryTrace()
    x, dx, tape = np.zeros(16), np.zeros(16), np.zeros(16)
    trace.mark_shadow(dx)
    trace.mark_tape(tape)
    order = [(x, 0, False), (dx, 3, True), (tape, 9, True), (x, 15, False), (tape, 9, False)]
    for arr, i, write in order:
        trace.record(arr, (i,), write, False)
    addresses, writes, tape_flags = trace.arrays()
    roles = AccessRoles(trace, addresses, tape_flags)
    assert roles.all().tolist() == [PRIMAL, SHADOW, TAPE, PRIMAL, TAPE]
    assert roles[np.array([4, 1])].tolist() == [TAPE, SHADOW]
    assert roles.all().tolist() == trace.roles(addresses, tape_flags).tolist()
    config = CacheConfig(size_bytes=2 * LINE, assoc=1, line_bytes=LINE)
    cache = simulate_cache(addresses, writes, config)
    assert dram_traffic(addresses, roles, cache, LINE) == dram_traffic(
        addresses, roles.all(), cache, LINE
    )


def test_roles_by_buffer_hand_computed() -> None:
    """`MemoryTrace.roles` by the buffer each address falls in (the last base at
    or below it): before the first buffer primal, in a shadow shadow, anywhere
    tape where flagged; asked again after a buffer is added and one marked a
    shadow, the buffers are read anew. By hand, from the bases the trace gave."""
    trace = MemoryTrace()
    x, dx = np.zeros(8), np.zeros(8)
    trace.mark_shadow(dx)
    trace.record(x, (0,), False, False)
    trace.record(dx, (0,), True, False)
    x_at, dx_at = (trace.base_of(a, a.ctypes.data) for a in (x, dx))
    assert x_at < dx_at
    asked = np.array([0, x_at - 8, x_at, x_at + 56, dx_at, dx_at + 56, dx_at + 4096])
    flags = np.array([False, False, False, True, False, False, False])
    roles = trace.roles(asked, flags).tolist()
    assert roles == [PRIMAL, PRIMAL, PRIMAL, TAPE, SHADOW, SHADOW, SHADOW]
    y = np.zeros(8)
    trace.record(y, (0,), False, False)
    trace.mark_shadow(x)
    y_at = trace.base_of(y, y.ctypes.data)
    asked = np.array([x_at, dx_at, y_at])
    roles = trace.roles(asked, np.zeros(3, dtype=bool)).tolist()
    assert roles == [SHADOW, SHADOW, PRIMAL]
