"""
One lowering and run for the machines on which `tapeflow-layers`' cost model
makes the same choices (`sim.simulator.stream_choices`), checked against runs of
each machine on its own. rowlse at small size (1000 rows of 4) with the Tflow
preset: its nest is kept in DRAM with 256 B and 512 B caches (its arrays and tape
do not fit: REV's tape reads would miss anyway) and with a 1 KB cache, a DRAM of 5
or 7 cycles and 4 GB/s (streaming would save less in misses and loop issue than
the tiles' preloads add at that bandwidth; the two reasons quote different numbers),
and streamed with 1 KB and 4 KB caches and the preset's DRAM (100 cycles, 19.2
GB/s): one cache size on either side, so the runs follow the choices, not the
caches.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sim import simulator
from sim.simulator import SimulationError
from tapeflow_benchmarks.harness import runner
from tapeflow_benchmarks.harness.points import Group, Point
from tapeflow_tools.context import make_context

GROUP = Group("rowlse", "small", "tapeflow", 512)
FAST = {
    latency: replace(
        GROUP, settings=(("dram.bandwidth_gbs", 4.0), ("dram.latency_cycles", latency))
    )
    for latency in (5, 7)
}
POINTS = {
    **{(cache, 100): Point(GROUP, cache) for cache in (256, 512, 1024, 4096)},
    **{(1024, latency): Point(group, 1024) for latency, group in FAST.items()},
}
MEMBERS = [(p.group, [p]) for p in POINTS.values()]
KEPT = [(256, 100), (512, 100), (1024, 5), (1024, 7)]
STREAMED = [(1024, 100), (4096, 100)]
TIMING = {"group_seconds", "simulator"}


def _choices() -> simulator.StreamChoices:
    module, recompute = runner._source_module(GROUP)
    machines = [p.hardware() for p in POINTS.values()]
    return simulator.stream_choices(
        make_context(), module, "tapeflow", machines, GROUP.unroll, recompute=recompute
    )


def _choice(choices: simulator.StreamChoices, key: tuple[int, int]) -> simulator.StreamChoice:
    return choices[simulator.run_key(POINTS[key].hardware())]


def test_machines_of_one_choice_share_a_run_and_others_do_not() -> None:
    choices = _choices()
    kept = [_choice(choices, key) for key in KEPT]
    streamed = [_choice(choices, key) for key in STREAMED]
    assert all(c.streams == ((False,),) for c in kept)
    assert all(c.streams == ((True,),) for c in streamed)
    # The kept nest's reason quotes each machine's own numbers.
    fast = [_choice(choices, key).reasons[0][0] for key in KEPT[2:]]
    assert fast[0] != fast[1] and all(r.startswith("cost model:") for r in fast)
    runs = runner._shared_runs(MEMBERS, choices)
    shared = sorted(
        sorted((p.cache_bytes, p.hardware().dram.latency_cycles) for _, ps in run for p in ps)
        for run in runs
    )
    assert shared == [sorted(KEPT), sorted(STREAMED)]


def test_a_shared_run_reports_what_each_machine_run_alone_does() -> None:
    shared = runner.run_bundle(MEMBERS)
    for key, point in POINTS.items():
        alone = runner.run_bundle([(point.group, [point])])[point]
        assert "error" not in alone, alone
        mine = {k: v for k, v in shared[point].items() if k not in TIMING}
        assert mine == {k: v for k, v in alone.items() if k not in TIMING}, key
    # What was compared differs between the machines: kept vs streamed, and the
    # kept nest's reason names the machine's numbers.
    kept = {key: shared[p]["kept_regions"] for key, p in POINTS.items()}
    assert all(kept[key] for key in KEPT) and not any(kept[key] for key in STREAMED)
    assert kept[1024, 5] != kept[1024, 7]
    assert shared[POINTS[256, 100]]["cycles"] != shared[POINTS[512, 100]]["cycles"]
    # One run each for the kept and the streamed machines.
    for run in (KEPT, STREAMED):
        assert len({shared[POINTS[key]]["group_seconds"] for key in run}) == 1


def test_reasons_pair_only_where_they_tell_the_nests_apart() -> None:
    """A shared run's kept regions carry the reasons of the machine it ran on;
    another machine's are found by pairing the nests' reasons, which fails if
    two nests with one reason there have two here."""
    ran = simulator.StreamChoice(((False, False, True),), (("a", "a", "s"),))
    assert ran.kept_reasons(simulator.StreamChoice(((False, False, True),), (("b", "b", "t"),)))
    assert (
        ran.kept_reasons(simulator.StreamChoice(((False, False, True),), (("b", "c", "t"),)))
        is None
    )
    assert simulator.StreamChoice(((False, False),), (("a", "b"),)).kept_reasons(
        simulator.StreamChoice(((False, False),), (("c", "c"),))
    ) == {"a": "c", "b": "c"}


def test_evaluate_takes_another_machine_only_with_the_same_choice() -> None:
    choices = _choices()
    point = POINTS[256, 100]
    lowered = runner._lower(GROUP, [point])

    def run(given: simulator.StreamChoices | None) -> simulator.Execution:
        return simulator.execute(
            lowered.module,
            lowered.function,
            [a.copy() if hasattr(a, "copy") else a for a in lowered.args],
            point.hardware(),
            lowered.tape_bytes,
            variant="tapeflow",
            choices=given,
        )

    execution = run(choices)
    simulator.evaluate(execution, POINTS[1024, 5].hardware())
    with pytest.raises(SimulationError, match="streams other nests"):
        simulator.evaluate(execution, POINTS[1024, 100].hardware())
    # Without the choices, a cache the cost model reads cannot be told safe.
    with pytest.raises(SimulationError, match="choices on both are not known"):
        simulator.evaluate(run(None), POINTS[512, 100].hardware())
