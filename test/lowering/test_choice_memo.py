"""
`tapeflow-layers`' cost model prices each nest twice where it keeps one (the
second time with the kept nests' tiles read through the cache), and the parts
of a price that do not read those tiles (the cycles streaming saves, the
pipeline fills it continues, the cycles its layers add, the overlap a cut loop
loses) are worked out at the first pricing and read at the second; the nests of
a function also share one `AccessReuse` of the layered copy. These tests price
real kernels' nests both ways: the pass's `_choose`, and every part worked out
afresh at each pricing, each nest's added cycles on an `AccessReuse` of its own
(the rule `_choose` followed before), on several machines. So are a loop's
lines per iteration with each nest's runs counted once, and an iteration's cycles
from the body `pipeline_fill` read.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from xdsl.dialects import scf
from xdsl.passes import PassPipeline

from lowering.layers import cost
from lowering.layers.cost import AccessReuse, CutLoops, RevTimeline, StreamMachine
from lowering.layers.records import NestChoice, region_name
from lowering.scheduling.body import LoopBody, placeable
from lowering.tapeflow_layers import (
    TapeflowLayersPass,
    _attempts,
    _choose,
    _kept_marks,
    _region_gradients,
    _tile_sizes,
)
from sim.simulator import _front_end, _passes
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import Phase
from tapeflow_tools.context import make_context
from targets.hardware import configure

CGRA = StreamMachine()
MACHINES = [
    CGRA,
    replace(CGRA, cache_bytes=1024, cache_line_bytes=32, cache_mshrs=1),
    replace(CGRA, dram_latency=400, dram_bytes_per_cycle=1.0, runahead=False),
    replace(CGRA, cache_bytes=2048, integer=3),
]


def _priced_afresh(function, work, allocs, kept, machine, spad_bytes, straight):  # type: ignore[no-untyped-def]
    """`_choose` with nothing kept between the pricings or the nests."""
    originals = [op.region for op in function.walk() if isinstance(op, region.AllocOp)]
    groups: list[set[int]] = []
    for op in work.walk():
        if isinstance(op, layer.LayerOp) and op.phase.data is Phase.FWD:
            mine = {
                allocs.index(o.region)
                for o in op.walk()
                if isinstance(o, region.StoreOp)
                and o.region in allocs
                and allocs.index(o.region) not in kept
            }
            touching = [g for g in groups if g & mine]
            for g in touching:
                groups.remove(g)
                mine |= g
            if mine:
                groups.append(mine)
    accesses = AccessReuse(function)
    fits = accesses.footprint() <= machine.cache_bytes
    timeline = RevTimeline(work, machine)
    cut = CutLoops(function, machine, straight, accesses)

    def price(indices: list[int], tiles_kept: set) -> NestChoice | None:  # type: ignore[type-arg]
        names = ", ".join(f"#{i} {region_name(allocs[i])}" for i in indices)
        saved = cost.saved_cycles(function, {originals[i] for i in indices}, machine, accesses)
        mapping = {allocs[i]: originals[i] for i in indices}
        if saved is None:
            iteration = cut.iteration(work, mapping)
            breaks = iteration is None
            if breaks:
                iteration = cut.breaks(work, mapping, timeline, tiles_kept)
            if iteration is not None:
                lost, loops = iteration
                regions = {originals[i] for i in indices}
                bound = cost.saved_cycles(function, regions, machine, accesses, per_iteration=loops)
                if bound is not None and lost > bound:
                    return NestChoice(names, False, bound, lost, fits, True, breaks)
            return None
        layered = {allocs[i] for i in indices}
        saved += cost.continued_fills(work, layered, machine, timeline)
        added = cost.added_cycles(work, layered, machine, spad_bytes, timeline)
        added += cut.lost(work, mapping)
        added += cut.broken(work, layered, timeline, tiles_kept)
        return NestChoice(names, saved >= added, saved, added, fits)

    def decide(tiles_kept: set) -> list[tuple[list[int], NestChoice]]:  # type: ignore[type-arg]
        found = []
        for group in groups:
            choice = price(sorted(group), tiles_kept)
            if choice is not None:
                found.append((sorted(group), choice))
        return found

    choices = decide(set())
    kept_now = {allocs[i] for indices, c in choices if not c.stream for i in indices}
    return decide(kept_now) if kept_now else choices


def _staged(key: str, size: str, unroll: int, spad: int):  # type: ignore[no-untyped-def]
    """`key`'s module lowered as `prepare` lowers it under cgra, up to
    `tapeflow-layers`, and that pass."""
    ctx = make_context()
    module = parse_kernel(ctx, key, size)
    hardware = configure("Tflow32k")
    hardware = replace(hardware, scratchpad=replace(hardware.scratchpad, size_bytes=spad))
    _front_end(ctx, module, False)
    passes, cut = _passes(ctx, module, "tapeflow", hardware, unroll, "cgra", None, False)
    PassPipeline(passes[:cut]).apply(ctx, module)
    layers = passes[cut]
    assert isinstance(layers, TapeflowLayersPass)
    return module, layers


@pytest.mark.parametrize(
    ("key", "size", "unroll", "spad"),
    [
        ("lenet", "small", 1, 512),
        ("gravity", "small", 1, 64),
        ("pathfinder", "small", 1024, 512),
        ("logsum", "small", 1024, 512),
        ("nn", "small", 1, 64),
        ("mttkrp", "small", 1, 512),
        ("matdescent", "small", 1024, 512),
        ("massspring", "small", 1, 512),
        ("somier", "small", 1, 256),
        ("lu", "small", 1, 512),
        ("trmm", "small", 1, 128),
    ],
)
def test_each_nest_s_price_is_the_one_worked_out_afresh(
    key: str, size: str, unroll: int, spad: int
) -> None:
    module, layers = _staged(key, size, unroll, spad)
    entries, straight = _tile_sizes(
        layers.spad_bytes, layers.tiles_in_flight, layers.loop_tiles_in_flight
    )
    priced = 0
    for function in _region_gradients(module):
        kept = _kept_marks(function)
        work, _, allocs = _attempts(function, layers.spad_bytes, kept, entries, straight)
        shared = AccessReuse(work)  # as `nest_choices` shares it among machines
        for machine in MACHINES:
            want = _priced_afresh(
                function, work, allocs, set(kept), machine, layers.spad_bytes, straight
            )
            alone = _choose(
                function, work, allocs, set(kept), machine, layers.spad_bytes, straight=straight
            )
            together = _choose(
                function,
                work,
                allocs,
                set(kept),
                machine,
                layers.spad_bytes,
                straight=straight,
                work_accesses=shared,
            )
            assert alone == want
            assert together == want
            priced += len(want)
    assert priced  # every case prices at least one nest


class _Forgets(dict):  # type: ignore[type-arg]
    """A memo that keeps nothing."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


@pytest.mark.parametrize(
    ("key", "unroll"), [("lenet", 1), ("pathfinder", 1024), ("lu", 1), ("massspring", 1)]
)
def test_a_nest_s_runs_kept_for_its_accesses_are_its_own(key: str, unroll: int) -> None:
    # `AccessReuse` counts each nest's runs once for the lines of every loop's
    # iteration (`carrier_lines`); on real kernels (lu's triangular nests among
    # them), before and after layering, each loop's lines at several line sizes
    # are those counted afresh for every access.
    module, layers = _staged(key, "small", unroll, 512)
    entries, straight = _tile_sizes(
        layers.spad_bytes, layers.tiles_in_flight, layers.loop_tiles_in_flight
    )
    compared = 0
    for function in _region_gradients(module):
        work, _, _ = _attempts(
            function, layers.spad_bytes, _kept_marks(function), entries, straight
        )
        for each in (function, work):
            kept, afresh = AccessReuse(each), AccessReuse(each)
            afresh._runs = _Forgets()
            for loop in [op for op in each.walk() if isinstance(op, scf.ForOp)]:
                for line in (32, 64, 128):
                    assert kept.carrier_lines(loop, line) == afresh.carrier_lines(loop, line)
                    compared += 1
    assert compared


@pytest.mark.parametrize(("key", "unroll"), [("pathfinder", 1024), ("lenet", 1), ("gravity", 1)])
def test_an_iteration_s_cycles_from_the_body_the_fill_read_are_its_own(
    key: str, unroll: int
) -> None:
    # `pipeline_fill` hands the body it read to `iteration_cycles`, which read
    # it again before; on real kernels' innermost loops (fully unrolled
    # PathFinder's among them), on machines of other integer latencies and
    # ports, the cycles are those it finds reading the body itself.
    module, _ = _staged(key, "small", unroll, 512)
    loops = [
        op
        for op in module.walk()
        if isinstance(op, scf.ForOp) and not any(isinstance(o, scf.ForOp) for o in op.body.walk())
    ]
    compared = 0
    for loop in loops:
        ops = list(loop.body.block.ops)[:-1]
        if not all(placeable(op) for op in ops):
            continue
        for machine in (CGRA, replace(CGRA, integer=3, cache_ports=1)):
            read = LoopBody.of(ops, cost._latencies_of(machine))
            want = cost.iteration_cycles(loop, machine)
            assert cost.iteration_cycles(loop, machine, read) == want
            compared += 1
    assert compared
