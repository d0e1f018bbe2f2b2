"""
The timing models (`sim.models`), one mechanism at a time, on tiny kernels whose
cycles are computed by hand from the rules each model states (sim/models/cgra.py,
sim/models/salam/).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
import pytest

from lowering.tapeflow_to_cgra import lower_module
from sim.cache import simulate_cache
from sim.executor import Executor
from sim.kernel_compiler import is_kernel_loop
from sim.models import MODELS, UnknownModel, get_model
from sim.models.cgra import CGRA
from sim.models.salam.enzyme_llvm import authors_order, is_cache_tape_store
from sim.models.salam.lockstep import LockstepSchedule, enclosing_loops, lockstep_latencies
from sim.models.salam.machine import SALAM
from sim.models.salam.machine import salam_hardware as salam_defaults
from sim.models.salam.model import (
    SALAM_MODEL,
    _layout,
    all_hits_cycles,
    authors_dram_bytes,
    run_cycles,
    runs_cycles,
    whole_cycles,
)
from sim.simulator import SimulationError, prepare, simulate
from sim.timing import TimingRecorder, report, window_table
from sim.trace import MemoryTrace
from tapeflow_benchmarks.common import parse_kernel
from tapeflow_dialects import cgra
from tapeflow_dialects.cgra import MemPath
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import bind_arguments
from targets.costs import kernel_profile, op_class, op_latency
from targets.energy import FU_CLASSES
from targets.hardware import (
    DatapathConfig,
    FunctionalUnits,
    HardwareError,
    PlacementConfig,
    configure,
)
from targets.machine import layered

PORTS = DatapathConfig().ports
"""The authors' two memory ports."""

HEADER = (
    "attributes {tapeflow.gradient_of = @g, tapeflow.activity = [#enzyme.activity<enzyme_dup>], "
    "tapeflow.ret_activity = [#enzyme.activity<enzyme_active>]}"
)


def salam_hardware(hw: Any) -> Any:
    """The salam machine of `hw` under the strict load ordering, without the
    adjoint additions, and with an outermost loop's latch draining at every
    iteration: the rules most tests here derive by hand (the release, additions
    and latch tests set theirs: `released`, `with_additions`, `exit_latches`)."""
    machine = salam_defaults(hw)
    datapath = replace(
        machine.datapath, ordering="strict", adjoint_additions=False, latch="iterations"
    )
    return replace(machine, datapath=datapath)


def placed(text: str, hardware: Any) -> Any:
    """A module with one loop function `@k`, its loop bodies placed for `hardware`."""
    module = LocatingParser(make_context(), text.replace("ATTRS", HEADER), "k.mlir").parse_module()
    lower_module(module, hardware)
    module.verify()
    return module


def run(module: Any, hardware: Any, args: list[Any], model: str) -> tuple[dict[str, Any], Any, Any]:
    trace = MemoryTrace(base=hardware.placement.base, alignment=hardware.placement.alignment)
    recorder = TimingRecorder(trace, hardware, planner=get_model(model).kernel_plan)
    Executor(module, trace, recorder).run("k", args)
    recorder.finish()
    addresses, writes, tape = trace.arrays()
    cache = simulate_cache(addresses, writes, hardware.cache)
    return (
        report(recorder, cache, trace.roles(addresses, tape), hardware, 0, model),
        recorder,
        cache,
    )


def test_the_registry() -> None:
    assert list(MODELS) == ["cgra", "salam"]
    assert get_model("salam").name == "salam"
    with pytest.raises(UnknownModel, match="unknown timing model 'gem5'; choose from cgra, salam"):
        get_model("gem5")
    with pytest.raises(SimulationError, match="unknown timing model"):
        prepare(make_context(), None, "enzyme", configure("Enzyme32k"), model="gem5")  # type: ignore[arg-type]


# ------------------------------------------------------------------ salam


def test_salam_access_costs_follow_from_the_stated_latencies() -> None:
    # A hit: local bus 1 + 1 ns, then tag and data looked up in parallel, 20 ns:
    # 22 ns. A miss: local bus 2, tag 20, membus 3 + 4 + 2 + 1 = 10, DRAM
    # controller 10 + 10, tRCD 14.16, tCL 14.16, tBURST 3.333, response 20:
    # 103.653 ns. Sent at once they are seen at the 3rd and 11th 10 ns tick.
    assert SALAM.hit_cycles == 3
    assert SALAM.miss_cycles == 11
    # The request waits up to one period for the interface's tick: a hit is seen
    # at the 3rd tick if the wait is at most 8 ns, else the 4th (mean 3.2); a miss
    # at the 11th if at most 6.347 ns, else the 12th.
    assert SALAM.hit_expected == pytest.approx(3 + 2 / 10)
    assert SALAM.miss_expected == pytest.approx(11 + 3.653 / 10)
    hw = salam_hardware(configure("Tflow2k"))
    assert hw.datapath.ports == 2 and hw.datapath.lockstep
    assert (hw.cache.hit_latency, hw.dram.latency_cycles) == (3, 8)
    assert hw.cache.assoc == 4 and hw.cache.mshrs == 20 and hw.cache.size_bytes == 2048
    assert hw.clock_ghz == pytest.approx(0.1)
    assert (hw.latencies.fadd, hw.latencies.fmul, hw.latencies.fdiv) == (5, 4, 16)
    assert hw.latencies.transcendental == 1  # a libm call, committed at the next tick
    assert hw.placement == PlacementConfig(base=0x80C00000, alignment=8, heap=0x80CF4240)
    assert hw.scratchpad == configure("Tflow2k").scratchpad
    assert salam_hardware(configure("Enzyme1k")).cache.assoc == 4  # at every size


def kernels_of(module: Any) -> list[cgra.KernelOp]:
    """The kernels loops iterate (not the straight-line runs placed around them)."""
    return [
        op
        for op in module.walk()
        if isinstance(op, cgra.KernelOp) and is_kernel_loop(op.parent_op())
    ]


def schedule_of(kernel: cgra.KernelOp, hardware: Any) -> LockstepSchedule:
    """The schedule the simulator uses (`KernelProfile.plan` under salam)."""
    schedule = kernel_profile(kernel, hardware, SALAM_MODEL.kernel_plan).plan
    assert schedule is not None
    return schedule


def rows(schedule: LockstepSchedule, iterations: int) -> list[list[int]]:
    """The groups of every op (in body order) of a run's first iterations."""
    return schedule.groups(iterations).tolist()


def period_of(schedule: LockstepSchedule) -> int:
    """Groups between consecutive iterations once a run has settled."""
    return schedule.steady()[0]


def depth_of(schedule: LockstepSchedule) -> int:
    """Groups from a run's first group to its first iteration's last issue, plus one."""
    return max(rows(schedule, 1)[0]) + 1


def in_group(schedule: LockstepSchedule, row: list[int]) -> tuple[tuple[int, bool], ...]:
    """(group, is a write) of each cache access of an iteration placed as `row`."""
    return tuple((row[n], write) for n, write in schedule.accesses)


def accesses_in_groups(schedule: LockstepSchedule) -> tuple[tuple[int, bool], ...]:
    """(group, is a write) of each cache access of the first iteration, in body order."""
    return in_group(schedule, rows(schedule, 1)[0])


def compute_in_groups(schedule: LockstepSchedule) -> list[tuple[int, int]]:
    """(group, cycles) of the first iteration's compute ops of a cycle or more, sorted."""
    row = rows(schedule, 1)[0]
    return sorted((row[n], cycles) for n, cycles in schedule.compute)


@dataclass(frozen=True)
class ByHand:
    """A schedule written by hand: iteration k's ops k * period groups after the
    first's, in `first`'s groups (what `runs_cycles` reads of a schedule)."""

    period: int
    first: tuple[int, ...]
    compute: tuple[tuple[int, int], ...]
    accesses: tuple[tuple[int, bool], ...]
    laid_out: dict[bytes, object] = field(default_factory=dict, compare=False)

    def groups(self, iterations: int) -> np.ndarray:
        k = np.arange(iterations, dtype=np.int64)[:, None]
        return k * self.period + np.array(self.first, dtype=np.int64)[None, :]


def nested(text: str, trips: int = 1) -> str:
    """`text` with everything from its first loop to its return inside an outer
    loop of `trips` trips, so that the first loop is not an outermost loop."""
    start = re.search(r"^  (%\w+ = )?scf\.for", text, re.MULTILINE)
    assert start is not None
    head, rest = text[: start.start()], text[start.start() :]
    body, tail = rest.split("  func.return\n", 1)
    inner = "\n".join("  " + line for line in body.rstrip("\n").splitlines())
    return (
        f"{head}  %co = arith.constant {trips} : index\n"
        f"  scf.for %o = %c0 to %co step %c1 {{\n{inner}\n  }}\n  func.return\n{tail}"
    )


CHAIN = """
func.func @k(%x: memref<8xf64>, %out: memref<1xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<8xf64>
    %a = arith.mulf %v, %v : f64
    %b = arith.mulf %a, %v : f64
    %c = arith.divf %b, %v : f64
    %n = arith.addf %acc, %c : f64
    scf.yield %n : f64
  }
  memref.store %s, %out[%c0] : memref<1xf64>
  func.return
}
"""


def test_an_outermost_loop_latches_its_iterations_do_not_overlap() -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    module = placed(CHAIN, hw)
    (kernel,) = kernels_of(module)
    assert enclosing_loops(kernel) == 0
    schedule = schedule_of(kernel, hw)
    # Groups {load} 0, {mulf} 1, {mulf} 2, {divf} 3, {addf} 4; the latch waits
    # for the iteration to drain before the next one starts.
    assert schedule.latching and period_of(schedule) == depth_of(schedule) == 5
    x, out = np.arange(1.0, 9.0), np.zeros(1)
    data, _, _ = run(module, hw, [x, out], "salam")
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    # x is one line: the first load misses. Then the store of the sum (a miss).
    loop = (miss + 4 + 4 + 16 + 5) + 7 * (hit + 4 + 4 + 16 + 5)
    assert data["cycles"]["total"] == math.ceil(loop) + math.ceil(miss) == 278


def test_inner_loop_iterations_overlap_in_lockstep_groups() -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    module = placed(nested(CHAIN), hw)
    (kernel,) = kernels_of(module)
    assert enclosing_loops(kernel) == 1
    # One iteration: {load} 0, {mulf} 1, {mulf} 2, {divf} 3, {addf} 4; the next
    # iteration is launched 2 groups later (induction add, then icmp), and the
    # addf's loop-carried chain (one group a trip) allows that.
    schedule = schedule_of(kernel, hw)
    assert period_of(schedule) == 2 and depth_of(schedule) == 5
    assert accesses_in_groups(schedule) == ((0, False),)
    assert compute_in_groups(schedule) == [(1, 4), (2, 4), (3, 16), (4, 5)]
    x, out = np.arange(1.0, 9.0), np.zeros(1)
    data, _, _ = run(module, hw, [x, out], "salam")
    # Groups 0..18: odd groups hold a mulf (4) and, from group 3 to 17, a divf
    # (16); even groups a load (hit 3.2), a mulf (4) from group 2 and an addf (5)
    # from group 4 to 18. x is one line: its first load misses (11.3653).
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    kernel_cycles = miss + 4 + 4 + 8 * 16 + 8 * 5
    assert kernel_cycles < 8 * (hit + 4 + 4 + 16 + 5)  # trips x steps: no overlap
    # Then the store of the sum, outside the loop: a miss (out is its own line).
    assert data["cycles"]["total"] == math.ceil(kernel_cycles) + math.ceil(miss) == 200
    assert data["model"] == "salam"
    assert out[0] == pytest.approx(np.sum(x * x * x / x))  # the values are still computed


def test_a_read_and_a_write_share_a_port_and_two_ports_serve_two_reads() -> None:
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    together = ByHand(2, (0, 0), (), ((0, False), (1, True)))
    assert run_cycles(together, 1, np.array([hit, hit]), PORTS) == pytest.approx(hit)
    two = ByHand(2, (0, 0), (), ((0, False), (1, False)))
    assert run_cycles(two, 1, np.array([hit, hit]), PORTS) == pytest.approx(hit)
    three = ByHand(2, (0, 0, 0), (), ((0, False), (1, False), (2, False)))
    assert run_cycles(three, 1, np.full(3, hit), PORTS) == pytest.approx(2 * hit)
    # A miss holds its slot while the other port serves the hits.
    mixed = np.array([miss, hit])
    assert run_cycles(two, 1, mixed, PORTS) == pytest.approx(miss)
    # One port (`datapath.ports = 1`): its read slot serves the two reads in turn.
    assert run_cycles(two, 1, np.array([hit, hit]), 1) == pytest.approx(2 * hit)
    assert run_cycles(together, 1, np.array([hit, hit]), 1) == pytest.approx(hit)


def test_a_datapath_that_does_not_lockstep_is_refused_with_its_reason() -> None:
    with pytest.raises(HardwareError, match="datapath.lockstep = false is not simulated"):
        layered(salam_hardware(configure("Enzyme32k")), [], ["datapath.lockstep=false"])
    with pytest.raises(HardwareError, match="datapath.ports must be at least 1"):
        layered(salam_hardware(configure("Enzyme32k")), [], ["datapath.ports=0"])


def test_runs_of_one_kernel_timed_together_are_timed_as_alone() -> None:
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    # Period 2: a load in group 0, a 4-cycle mulf in group 1, one write in group 1.
    schedule = ByHand(2, (0, 1, 1), ((1, 4),), ((0, False), (2, True)))
    trips = np.array([3, 0, 1, 2])
    rng = np.random.default_rng(7)
    latency = np.where(rng.random(2 * int(trips.sum())) < 0.5, hit, miss)
    together = runs_cycles(schedule, trips, latency, PORTS)
    alone, at = [], 0
    for t in trips.tolist():
        alone.append(run_cycles(schedule, t, latency[at : at + 2 * t], PORTS))
        at += 2 * t
    assert together.tolist() == alone
    # By hand, the 1-trip run: group 0 its load, group 1 the mulf (4) beside the
    # write.
    load, write = latency[6], latency[7]
    assert together[2] == pytest.approx(max(1.0, load) + max(4.0, write))
    assert together[1] == 0.0


def test_a_batch_of_runs_laid_out_once_is_timed_as_laid_out_afresh() -> None:
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    schedule = ByHand(2, (0, 1, 1), ((1, 4),), ((0, False), (2, True)))
    trips = np.array([3, 0, 1, 2])
    rng = np.random.default_rng(11)
    latencies = [
        np.where(rng.random(2 * int(trips.sum())) < 0.5, hit, miss),
        np.full(2 * int(trips.sum()), miss),
        np.array([miss]),  # not one per access: each run at the mean
    ]
    # The same schedule times the batch under each latency (laid out once, kept),
    # as a schedule that has laid out nothing yet does.
    kept = [runs_cycles(schedule, trips, latency, PORTS).tolist() for latency in latencies]
    assert len(schedule.laid_out) == 1
    assert kept == [
        runs_cycles(replace(schedule, laid_out={}), trips, latency, PORTS).tolist()
        for latency in latencies
    ]
    assert kept[1] == kept[2]  # every access at the miss time either way
    all_hits = all_hits_cycles(schedule, trips, hit, PORTS)
    assert all_hits is all_hits_cycles(schedule, trips, hit, PORTS)  # kept too
    # By hand, the 1-trip run all hits: its load's group, then the mulf beside
    # the write.
    assert all_hits[2] == pytest.approx(max(1.0, hit) + max(4.0, hit))
    assert all_hits[1] == 0.0


def test_whole_cycles_do_not_count_the_rounding_of_a_sum() -> None:
    fifteen_hits = sum([3.2] * 15)  # 48.00000000000001
    assert fifteen_hits > 48
    assert whole_cycles(np.array([fifteen_hits, 48.5, 3.0])).tolist() == [48, 49, 3]


ORDERED = """
func.func @k(%x: memref<8xf64>, %y: memref<8xf64>, %z: memref<8xf64>, %p: f64, %q: f64) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %a1 = arith.addf %p, %q : f64
    %a2 = arith.mulf %a1, %q : f64
    memref.store %a2, %y[%i] : memref<8xf64>
    %v = memref.load %x[%i] : memref<8xf64>
    %b1 = arith.mulf %v, %v : f64
    %b2 = arith.addf %b1, %v : f64
    memref.store %b2, %z[%i] : memref<8xf64>
  }
  func.return
}
"""


def test_a_load_waits_for_older_stores_not_yet_issued() -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    (kernel,) = kernels_of(placed(nested(ORDERED), hw))
    schedule = schedule_of(kernel, hw)
    # Within the iteration: {addf} 0, {mulf} 1, {store y} 2, then the load of x
    # waits for that store: 3, {mulf} 4, {addf} 5, {store z} 6.
    assert accesses_in_groups(schedule) == ((2, True), (3, False), (6, True))
    # Across iterations: at period 2 the store of z (group 6) is still pending
    # when the next block is scheduled, so the next load waits for it: 3 >= 6 + 1
    # - period needs period 4 (at 3 every pending store holds the load, 3 >= 7 - 3
    # fails as well).
    assert period_of(schedule) == 4


def test_a_store_that_issues_by_the_branch_holds_no_load_back() -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    text = ORDERED.replace(
        "%b1 = arith.mulf %v, %v : f64\n    %b2 = arith.addf %b1, %v : f64\n    "
        "memref.store %b2, %z[%i] : memref<8xf64>\n",
        "",
    )
    (kernel,) = kernels_of(placed(nested(text), hw))
    schedule = schedule_of(kernel, hw)
    # Store y at group 2 issues in the pass whose branch schedules the next
    # iteration, before the branch: the next load does not wait for it.
    assert accesses_in_groups(schedule) == ((2, True), (3, False))
    assert period_of(schedule) == 2


FANOUT = """
func.func @k(%x: memref<8xf64>, %out: memref<1xf64>, %p: f64, %q: f64, %r: f64) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<8xf64>
    %a = arith.mulf %v, %p : f64
    %b = arith.mulf %v, %q : f64
    %c = arith.mulf %v, %r : f64
    %s1 = arith.addf %a, %b : f64
    %s2 = arith.addf %s1, %c : f64
    %n = arith.addf %acc, %s2 : f64
    scf.yield %n : f64
  }
  memref.store %s, %out[%c0] : memref<1xf64>
  func.return
}
"""


def with_datapath(hw: Any, threshold: int | None = None, **units: int) -> Any:
    """`hw` with some functional-unit counts and the scheduling threshold set."""
    datapath = replace(hw.datapath, units=replace(hw.datapath.units, **units))
    if threshold is not None:
        datapath = replace(datapath, sched_threshold=threshold)
    changed = replace(hw, datapath=datapath)
    changed.validate()
    return changed


def test_the_authors_datapath_has_no_unit_limit_and_a_threshold_of_10000() -> None:
    # HWAccConfig.py at a5e40f4be reads no [FunctionalUnits] and the fork never
    # asks for a unit; nn.ini's [Scheduler] gives sched_threshold = 10000; two
    # ports; lockstep_mode on.
    hw = salam_defaults(configure("Enzyme32k"))
    assert hw.datapath == DatapathConfig(FunctionalUnits(0, 0, 0, 0, 0, 0), 10000, 2, True)
    # Their source's load ordering, and the program as their Enzyme gives it, unless set.
    assert hw.datapath.ordering == "release" and hw.datapath.adjoint_additions
    assert [f.name for f in fields(FunctionalUnits)] == list(FU_CLASSES)


def test_ops_of_a_class_wait_for_a_free_unit() -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    # Unlimited: {load} 0, {3 mulf} 1, {addf} 2, {addf} 3, {addf carried} 4; the
    # carried addf allows period 2 (4 + 1 - 2 <= 4).
    free = schedule_of(kernels_of(placed(nested(FANOUT), hw))[0], hw)
    assert (period_of(free), depth_of(free)) == (2, 5)
    assert compute_in_groups(free) == [(1, 4), (1, 4), (1, 4), (2, 5), (3, 5), (4, 5)]
    # One multiplier: 3 mulfs an iteration need 3 groups of its modulo table, so
    # period 3. mulf a takes group 1; b finds 1 taken, 2 free; c finds 1 and 2
    # taken, 3 (= 0 mod 3) free. Then s1 3, s2 4, n 5.
    one = with_datapath(hw, fmul=1)
    module = placed(nested(FANOUT), one)
    schedule = schedule_of(kernels_of(module)[0], one)
    assert (period_of(schedule), depth_of(schedule)) == (3, 6)
    assert compute_in_groups(schedule) == [(1, 4), (2, 4), (3, 4), (3, 5), (4, 5), (5, 5)]
    # An outermost loop (no overlap): the same groups, one iteration after another.
    outer = schedule_of(kernels_of(placed(FANOUT, one))[0], one)
    assert outer.latching and period_of(outer) == depth_of(outer) == 6
    # The cycles, 8 trips: iteration k's ops at 3k + (0 load, 1 a, 2 b, 3 c and s1,
    # 4 s2, 5 n): 27 groups. Group 0 the first load (a miss; x is one line), 1 and
    # 2 a mulf (4); from group 3 on every group holds an addf (5). Then the store
    # of the sum (a miss, its own line).
    x, out = np.arange(1.0, 9.0), np.zeros(1)
    data, _, _ = run(module, one, [x, out, 2.0, 3.0, 4.0], "salam")
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    assert hit < 5
    loop = miss + 4 + 4 + 24 * 5
    assert data["cycles"]["total"] == math.ceil(loop) + math.ceil(miss) == 152
    # Unlimited: 19 groups (7 x 2 + 5): group 0 the miss, group 1 the mulfs (4),
    # every later one an addf (5).
    data, _, _ = run(placed(nested(FANOUT), hw), hw, [x, np.zeros(1), 2.0, 3.0, 4.0], "salam")
    assert data["cycles"]["total"] == math.ceil(miss + 4 + 17 * 5) + math.ceil(miss) == 113
    assert out[0] == pytest.approx(np.sum(x * 9.0))


def test_the_scheduling_threshold_holds_the_branch_back() -> None:
    hw = salam_hardware(configure("Enzyme32k"))

    # FANOUT's entries: load 0 (with its address: 2), mulfs 1, s1 2, s2 3, n 4,
    # and the induction add 0 and icmp 1. At period 2, when the branch schedules
    # the next block just in time, the previous iteration's s2 (3 > 2) and n (4 >
    # 2) are still in the table: 2 entries, and the branch itself makes 3.
    def period(threshold: int) -> int:
        tight = with_datapath(hw, threshold)
        return period_of(schedule_of(kernels_of(placed(nested(FANOUT), tight))[0], tight))

    assert period(4) == 2
    # A threshold of 3 holds it until only n is pending: period 3 (n, 4 > 3).
    assert period(3) == 3
    # 2: only the branch may be left, so the block is scheduled once the whole
    # iteration (groups 0-4) has issued: period 4, when n issues before the branch.
    assert period(2) == 4


CARRIED_STORE = """
func.func @k(%x: memref<8xf64>, %y: memref<8xf64>, %out: memref<1xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %one) -> (f64) {
    %v = memref.load %x[%i] : memref<8xf64>
    %m = arith.mulf %acc, %v : f64
    %a = arith.addf %m, %v : f64
    memref.store %a, %y[%i] : memref<8xf64>
    %n = arith.mulf %a, %v : f64
    scf.yield %n : f64
  }
  memref.store %s, %out[%c0] : memref<1xf64>
  func.return
}
"""


def test_the_threshold_decides_whether_the_previous_store_holds_the_next_load() -> None:
    hw = salam_hardware(configure("Enzyme32k"))

    # {load x} 0, {mulf m} 1, {addf a} 2, {store y, mulf n} 3. The carried chain
    # m -> a -> n -> m needs period 3 (1 >= 3 + 1 - period). At period 3 the store
    # (group 3) issues in the very pass the next block is due: it holds the next
    # load back only if the branch, running ahead, scheduled that block a group
    # early. With the default threshold it may, so the load waits (0 >= 3 + 1 -
    # period): period 4.
    def schedule(threshold: int | None) -> LockstepSchedule:
        machine = with_datapath(hw, threshold)
        return schedule_of(kernels_of(placed(nested(CARRIED_STORE), machine))[0], machine)

    assert period_of(schedule(None)) == 4
    assert accesses_in_groups(schedule(None)) == ((0, False), (3, True))
    # Scheduled a group early at period 3, the block finds pending the previous
    # iteration's n and store y (group 3, ceil(4 / 3) - 1 = 1 iteration back):
    # 1 + 2 entries, 4 with the branch. A threshold of 4 forbids that lead, so
    # the store has issued when the block comes: period 3.
    assert period_of(schedule(5)) == 4
    assert period_of(schedule(4)) == 3


UNROLLED_CACHE = """
func.func @k(%x: memref<8xf64>, %out: memref<1xf64>, %k: f64) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %t = memref.alloc() {tapeflow.tape} : memref<8xf64>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %j0 = arith.muli %i, %c2 : index
    %v0 = memref.load %x[%j0] : memref<8xf64>
    %d0 = arith.divf %v0, %k : f64
    memref.store %d0, %t[%j0] : memref<8xf64>
    %j1 = arith.addi %j0, %c1 : index
    %v1 = memref.load %x[%j1] : memref<8xf64>
    %d1 = arith.divf %v1, %k : f64
    memref.store %d1, %t[%j1] : memref<8xf64>
    %p = arith.addf %d0, %d1 : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  memref.store %s, %out[%c0] : memref<1xf64>
  func.return
}
"""


def test_enzyme_llvm_gathers_an_unrolled_bodys_cache_stores_behind_its_loads() -> None:
    """Two unrolled copies, each caching its quotient as Enzyme-MLIR does, right
    after it. Enzyme for LLVM caches d1 first (its reverse sweep starts from the
    body's end): right after d1; then d0 after the first store that follows d0,
    d1's. Both stores come after both loads, which then wait for neither."""
    hw = salam_hardware(configure("Enzyme32k"))
    (kernel,) = kernels_of(placed(nested(UNROLLED_CACHE), hw))
    body = [op for op in kernel.body.block.ops if isinstance(op, cgra.PlacedOp)]
    tape = [op for op in body if is_cache_tape_store(op)]
    loads = [op for op in body if isinstance(op, cgra.LoadOp)]
    assert len(tape) == 2 and len(loads) == 2
    order = authors_order(body)
    assert max(order.index(op) for op in loads) < min(order.index(op) for op in tape)
    assert order.index(tape[1]) < order.index(tape[0])  # d1's store was placed first
    # In the iteration: {muli j0} 0, {load x0, addi j1} 1, {load x1} 2, then each
    # divf a group after its load and each store after its divf: the stores at 3
    # and 4, p 4, n 5. At period 2 the store at 4 is pending for the next block
    # (4 > 2) and its loads would wait (>= 4 + 1 - 2 = 3), pushing the stores on
    # without end. At period 3 (past the branch's pace, every store pending) the
    # next loads wait till 4 + 1 - 3 = 2: {muli} 0, {addi} 1, {load x0, load x1}
    # 2, {divf, divf} 3, {store, store, addf p} 4, {addf n} 5, which holds.
    schedule = schedule_of(kernel, hw)
    assert accesses_in_groups(schedule) == ((2, False), (4, True), (2, False), (4, True))
    assert (period_of(schedule), depth_of(schedule)) == (3, 6)
    # In our order (store d0 before load x1) the load of x1 would wait for it (4),
    # the last store would sit at 6, and the next loads at 6 + 1 - period <= 1
    # would need period 6.


def released(hw: Any) -> Any:
    """`hw` under the release ordering (`DatapathConfig.ordering`)."""
    changed = replace(hw, datapath=replace(hw.datapath, ordering="release"))
    changed.validate()
    return changed


def exit_latches(hw: Any) -> Any:
    """`hw` with the latch rule of the authors' programs (`DatapathConfig.latch`):
    only a loop's exit drains the datapath."""
    changed = replace(hw, datapath=replace(hw.datapath, latch="exit"))
    changed.validate()
    return changed


@pytest.mark.parametrize("ordering", ["strict", "release"])
def test_an_outermost_loop_whose_latch_drains_at_its_exit_overlaps_its_iterations(
    ordering: str,
) -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    hw = exit_latches(released(hw) if ordering == "release" else hw)
    schedule = schedule_of(kernels_of(placed(CHAIN, hw))[0], hw)
    # {load} 0, {mulf} 1, {mulf} 2, {divf} 3, {addf} 4, the next block two
    # groups later (the induction add and compare); the carried addf is ready
    # at 5, before the next addf's group 6.
    assert not schedule.latching and not schedule.continued
    assert rows(schedule, 3) == [[0, 1, 2, 3, 4], [2, 3, 4, 5, 6], [4, 5, 6, 7, 8]]


def test_the_runs_of_a_loop_continue_when_the_loop_around_it_drains_only_at_its_exit() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    (kernel,) = kernels_of(placed(nested(CHAIN, trips=2), hw))
    assert enclosing_loops(kernel) == 1
    assert not schedule_of(kernel, hw).continued  # the outer latch drains each trip
    exits = exit_latches(hw)
    (kernel,) = kernels_of(placed(nested(CHAIN, trips=2), exits))
    assert schedule_of(kernel, exits).continued


def test_a_latch_rule_other_than_exit_or_iterations_is_refused() -> None:
    with pytest.raises(HardwareError, match="datapath.latch = 'body' is not a latch rule"):
        layered(salam_hardware(configure("Enzyme32k")), [], ["datapath.latch=body"])


def test_release_places_an_outermost_loop_one_iteration_after_another() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    module = placed(CHAIN, hw)
    schedule = schedule_of(kernels_of(module)[0], hw)
    # {load} 0, {mulf} 1, {mulf} 2, {divf} 3, {addf} 4; the next block once it drained.
    assert schedule.latching
    assert rows(schedule, 2) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    # No store in the loop: the same cycles as under the strict ordering.
    x, out = np.arange(1.0, 9.0), np.zeros(1)
    data, _, _ = run(module, hw, [x, out], "salam")
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    loop = (miss + 4 + 4 + 16 + 5) + 7 * (hit + 4 + 4 + 16 + 5)
    assert data["cycles"]["total"] == math.ceil(loop) + math.ceil(miss) == 278


def test_release_overlaps_inner_loop_iterations_two_groups_apart() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    schedule = schedule_of(kernels_of(placed(nested(CHAIN), hw))[0], hw)
    assert rows(schedule, 3) == [[0, 1, 2, 3, 4], [2, 3, 4, 5, 6], [4, 5, 6, 7, 8]]
    assert schedule.accesses == ((0, False),)
    assert schedule.compute == ((1, 4), (2, 4), (3, 16), (4, 5))


def test_release_a_load_is_released_by_each_stores_oldest_unissued_instance() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    schedule = schedule_of(kernels_of(placed(nested(ORDERED), hw))[0], hw)
    # Ops: addf, mulf, store y, load x, mulf, addf, store z. The first iteration:
    # {addf} 0, {mulf} 1, {store y} 2, then the load of x waits for that store's
    # response: 3, {mulf} 4, {addf} 5, {store z} 6.
    first, second, third, fourth = rows(schedule, 4)
    assert first == [0, 1, 2, 3, 4, 5, 6]
    assert in_group(schedule, first) == ((2, True), (3, False), (6, True))
    # The second block is scheduled at group 2: store y of the first iteration
    # issues in that pass (before the branch), store z (6) is unissued and holds
    # every load of the block till its response: the load at 7 (its own store y,
    # at 4, no longer matters: the first iteration's y had issued, so the
    # second's is the oldest, and it answered at 5).
    assert second == [2, 3, 4, 7, 8, 9, 10]
    # The third block (group 4): the first iteration's z (6) is still the oldest
    # unissued instance of z, and its response releases the load (7), though the
    # second iteration's z (10) has not issued; one load instance in flight at a
    # time puts it at 8.
    assert third == [4, 5, 6, 8, 9, 10, 11]
    # The fourth (group 6): the first z issued in that pass; the second's (10)
    # is the oldest: the load at 11.
    assert fourth == [6, 7, 8, 11, 12, 13, 14]


def test_release_a_store_that_issues_by_the_branch_holds_no_load_back() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    text = ORDERED.replace(
        "%b1 = arith.mulf %v, %v : f64\n    %b2 = arith.addf %b1, %v : f64\n    "
        "memref.store %b2, %z[%i] : memref<8xf64>\n",
        "",
    )
    schedule = schedule_of(kernels_of(placed(nested(text), hw))[0], hw)
    # Store y at group 2 issues in the pass whose branch schedules the next
    # iteration, before the branch: the next load waits only for its own
    # iteration's store y, and every iteration is placed alike, 2 groups apart.
    assert rows(schedule, 3) == [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7]]
    assert schedule.accesses == ((2, True), (3, False))


def test_release_ops_of_a_class_wait_for_a_free_unit() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    # Ops: load, mulf a, b, c, addf s1, s2, n. Unlimited: {load} 0, {3 mulf} 1,
    # {s1} 2, {s2} 3, {n, carried} 4; the next iteration 2 groups later.
    free = schedule_of(kernels_of(placed(nested(FANOUT), hw))[0], hw)
    assert rows(free, 2) == [[0, 1, 1, 1, 2, 3, 4], [2, 3, 3, 3, 4, 5, 6]]
    # One multiplier: a takes group 1, b 2, c 3 (with s1); s2 4, n 5. The second
    # iteration (block at 2, load 2) finds the multiplier taken at 3 by c: a 4,
    # b 5, c 6; the third: a 7, b 8, c 9. Three groups an iteration for the mulfs.
    one = released(with_datapath(hw, fmul=1))
    module = placed(nested(FANOUT), one)
    schedule = schedule_of(kernels_of(module)[0], one)
    assert rows(schedule, 3) == [
        [0, 1, 2, 3, 3, 4, 5],
        [2, 4, 5, 6, 6, 7, 8],
        [4, 7, 8, 9, 9, 10, 11],
    ]
    outer = schedule_of(kernels_of(placed(FANOUT, one))[0], one)
    assert outer.latching
    assert rows(outer, 2) == [[0, 1, 2, 3, 3, 4, 5], [6, 7, 8, 9, 9, 10, 11]]
    # The cycles, 8 trips: iteration k's ops at 3k + (1 a, 2 b, 3 c and s1, 4 s2,
    # 5 n), its load at 2k: 27 groups. Group 0 the first load (a miss; x is one
    # line), 1 and 2 a mulf (4); from group 3 on every group holds an addf (5).
    # Then the store of the sum (a miss, its own line).
    x, out = np.arange(1.0, 9.0), np.zeros(1)
    data, _, _ = run(module, one, [x, out, 2.0, 3.0, 4.0], "salam")
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    assert hit < 5
    loop = miss + 4 + 4 + 24 * 5
    assert data["cycles"]["total"] == math.ceil(loop) + math.ceil(miss) == 152


def test_release_the_scheduling_threshold_holds_the_branch_back() -> None:
    hw = salam_hardware(configure("Enzyme32k"))

    # FANOUT's entries: load 0 (with its address: 2), mulfs 1, s1 2, s2 3, n 4,
    # and the induction add 0 and icmp 1. When the branch schedules the next
    # block 2 groups on, the previous iteration's s2 and n are still in the
    # table: 2 entries, and the branch itself makes 3.
    def spacing(threshold: int) -> int:
        tight = released(with_datapath(hw, threshold))
        return period_of(schedule_of(kernels_of(placed(nested(FANOUT), tight))[0], tight))

    assert spacing(4) == 2
    # A threshold of 3 holds it until only n is pending: 3 groups (n, 4 > 3).
    assert spacing(3) == 3
    # 2: only the branch may be left: the block waits till the whole iteration
    # (groups 0-4) has issued, 4 groups on, when n issues before the branch.
    assert spacing(2) == 4


def test_release_the_threshold_decides_whether_a_pending_store_holds_the_load() -> None:
    hw = salam_hardware(configure("Enzyme32k"))

    def schedule(threshold: int | None) -> LockstepSchedule:
        machine = released(with_datapath(hw, threshold))
        return schedule_of(kernels_of(placed(nested(CARRIED_STORE), machine))[0], machine)

    # Ops: load x, mulf m, addf a, store y, mulf n. The first iteration: {load x}
    # 0, {m} 1, {a} 2, {store y, n} 3. The carried chain m -> a -> n -> m needs 3
    # groups an iteration.
    # Default threshold: the second block (group 2) finds the first store y (3)
    # unissued, its response holds the load: 4, m 5, a 6, y and n 7. The third
    # (group 4): the second y (7) is the oldest unissued: load 8, m 9 ... n 11.
    # The fourth (group 6): the second y again (7): load 8, but one load in
    # flight at a time: 9; m after n (11): 12, a 13, y and n 14. The fifth
    # (group 8): the third y (11): load 12, m 15. The loads run ahead of the
    # chain, which keeps its 3 groups an iteration.
    assert rows(schedule(None), 5) == [
        [0, 1, 2, 3, 3],
        [4, 5, 6, 7, 7],
        [8, 9, 10, 11, 11],
        [9, 12, 13, 14, 14],
        [12, 15, 16, 17, 17],
    ]
    # Thresholds of 5 and 6: the third block waits (at group 4 the second
    # iteration's m, a, y (2 entries) and n are pending, 5 with the branch) till
    # group 6 (threshold 5) or 5 (threshold 6), when the second y (7) is still
    # unissued: the load at 8, as each later one: 4 groups an iteration.
    for threshold in (6, 5):
        assert rows(schedule(threshold), 3) == [
            [0, 1, 2, 3, 3],
            [4, 5, 6, 7, 7],
            [8, 9, 10, 11, 11],
        ]
    # A threshold of 4: the second block waits till group 3 (at 2, the first
    # iteration's y (2 entries) and n are pending, 4 with the branch), when the
    # first y has issued: nothing holds the load, and the chain sets the pace.
    assert rows(schedule(4), 3) == [[0, 1, 2, 3, 3], [3, 4, 5, 6, 6], [6, 7, 8, 9, 9]]


def test_release_an_unrolled_bodys_loads_wait_for_the_previous_stores_only() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    (kernel,) = kernels_of(placed(nested(UNROLLED_CACHE), hw))
    # Ops: muli j0, load x0, divf d0, store d0, addi j1, load x1, divf d1, store
    # d1, addf p, addf n. The first iteration: {muli} 0, {load x0, addi} 1,
    # {divf d0, load x1} 2, {store d0, divf d1} 3, {store d1, p} 4, {n} 5; the
    # stores come after both loads in the authors' order and hold neither.
    # The second block (group 2): both stores of the first iteration (3, 4) are
    # unissued; the later response (5) releases the loads: {load x0, load x1} 5,
    # divfs 6, stores 7, p 7, n 8. The third (group 4): the second iteration's
    # stores (7) are the oldest unissued (the first's issued by 4): loads 8. The
    # fourth (group 6): the second's again: loads at 8, but one instance of each
    # load in flight at a time: 9.
    schedule = schedule_of(kernel, hw)
    assert rows(schedule, 4) == [
        [0, 1, 2, 3, 1, 2, 3, 4, 4, 5],
        [2, 5, 6, 7, 3, 5, 6, 7, 7, 8],
        [4, 8, 9, 10, 5, 8, 9, 10, 10, 11],
        [6, 9, 10, 11, 7, 9, 10, 11, 11, 12],
    ]
    assert schedule.accesses == ((1, False), (3, True), (5, False), (7, True))


RMW = """
func.func @k(%y: memref<2xf64>, %x: memref<8xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 0.5 : f64
  scf.for %t = %c0 to %c4 step %c1 {
    %j0 = arith.muli %t, %c2 : index
    %y0 = memref.load %y[%c0] : memref<2xf64>
    %x0 = memref.load %x[%j0] : memref<8xf64>
    %p0 = arith.mulf %y0, %x0 : f64
    %n0 = arith.addf %p0, %h : f64
    memref.store %n0, %y[%c0] : memref<2xf64>
    %j1 = arith.addi %j0, %c1 : index
    %y1 = memref.load %y[%c1] : memref<2xf64>
    %x1 = memref.load %x[%j1] : memref<8xf64>
    %p1 = arith.mulf %y1, %x1 : f64
    %n1 = arith.addf %p1, %h : f64
    memref.store %n1, %y[%c1] : memref<2xf64>
  }
  func.return
}
"""
"""A read-modify-write chain in an unrolled block: two copies of BLAS's
`y := a * x + y` done in place, `y[j] <- y[j] * x[2t + j] + 0.5` (the check of
docs/research/salam-model.md, "A read-modify-write chain", at 16 copies)."""

RMW_FIRST = [0, 0, 1, 2, 3, 4, 1, 5, 5, 6, 7, 8]
"""The first iteration under either ordering. Ops: muli j0, load y0, load x0,
mulf, addf, store y0, addi j1, load y1, load x1, mulf, addf, store y1. {muli,
load y0 (a constant address)} 0, {load x0, addi} 1, mulf 2, addf 3, store y0 4;
the second copy's loads wait for that store's response: 5, mulf 6, addf 7,
store y1 8. No earlier instance of either store is pending."""


@pytest.mark.parametrize("ordering", ["strict", "release"])
def test_a_read_modify_write_chain_runs_copy_after_copy_when_iterations_drain(
    ordering: str,
) -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    hw = released(hw) if ordering == "release" else hw
    schedule = schedule_of(kernels_of(placed(RMW, hw))[0], hw)
    # An outermost loop: the next iteration once this one has drained (9 groups).
    assert schedule.latching
    assert rows(schedule, 2) == [RMW_FIRST, [g + 9 for g in RMW_FIRST]]


def test_release_overlaps_a_read_modify_write_chains_copies_across_iterations() -> None:
    hw = released(salam_hardware(configure("Enzyme32k")))
    schedule = schedule_of(kernels_of(placed(nested(RMW), hw))[0], hw)
    first, second, third, fourth = rows(schedule, 4)
    assert first == RMW_FIRST
    # The second block (group 2): the first iteration's stores (4, 8) are both
    # unissued; the later response (9) releases all four loads, the second
    # copy's own store y0 no longer holds its loads: the two copies side by side.
    assert second == [2, 9, 9, 10, 11, 12, 3, 9, 9, 10, 11, 12]
    # The third (group 4): store y0 of the first iteration issued in that pass;
    # the oldest unissued are the second's y0 (12) and the first's y1 (8): 13.
    assert third == [4, 13, 13, 14, 15, 16, 5, 13, 13, 14, 15, 16]
    # The fourth (group 6): the second's y0 (12) and the first's y1 (8) again:
    # 13, but one instance of each load in flight at a time: 14.
    assert fourth == [6, 14, 14, 15, 16, 17, 7, 14, 14, 15, 16, 17]


def test_an_outermost_rmw_chain_overlaps_as_a_nested_one_when_only_its_exit_drains() -> None:
    hw = exit_latches(released(salam_hardware(configure("Enzyme32k"))))
    schedule = schedule_of(kernels_of(placed(RMW, hw))[0], hw)
    # The latch waits only as the loop exits: the blocks follow one another two
    # groups apart, and the loads are released as in the nested loop above.
    assert not schedule.latching
    assert rows(schedule, 4) == rows(schedule_of(kernels_of(placed(nested(RMW), hw))[0], hw), 4)
    assert rows(schedule, 2)[1] == [2, 9, 9, 10, 11, 12, 3, 9, 9, 10, 11, 12]


REVERSE = """
func.func @k(%x: memref<8xf64>, %dx: memref<8xf64>, %g: f64) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %j0 = arith.muli %i, %c2 : index
    %j1 = arith.addi %j0, %c1 : index
    %v0 = memref.load %x[%j0] : memref<8xf64>
    %v1 = memref.load %x[%j1] : memref<8xf64>
    %e0 = arith.mulf %g, %v0 : f64
    %e1 = arith.mulf %g, %v1 : f64
    memref.store %e0, %dx[%j0] : memref<8xf64>
    memref.store %e1, %dx[%j1] : memref<8xf64>
  } {tapeflow.rev_start}
  func.return
}
"""
"""A reverse sweep (HEADER's roles: %x primal, %dx its shadow, %g the seed): the
seed, read from outside the body by two contributions `g * v`, each stored."""


def _reverse_nested(text: str) -> str:
    """`nested(text)` with the reverse sweep's mark on the outer loop, the
    gradient's top-level op."""
    text = nested(text.replace(" {tapeflow.rev_start}", ""))
    head, tail = text.rsplit("  }\n  func.return", 1)
    return head + "  } {tapeflow.rev_start}\n  func.return" + tail


def with_additions(hw: Any, ordering: str = "strict") -> Any:
    """`hw` with Enzyme for LLVM's adjoint additions (`datapath.adjoint_additions`)."""
    datapath = replace(hw.datapath, adjoint_additions=True, ordering=ordering)
    changed = replace(hw, datapath=datapath)
    changed.validate()
    return changed


@pytest.mark.parametrize("ordering", ["strict", "release"])
def test_enzyme_llvm_adds_each_contribution_to_a_zeroed_adjoint(ordering: str) -> None:
    """In an outermost (latching) reverse loop, by hand: the seed's chain of two
    links L0, L1 and the readers' own fadds R0 (after the previous iteration's
    L1: slack here), R1 (after L0): {j0, L0, R0} 0, {j1, v0, L1, R1} 1, {v1, e0} 2
    (e0 after v0 and R0), {e1, F0} 3 (F0 = fadd 0.0, e0), {F1, store e0} 4,
    {store e1} 5. Without the field, or without the gradient's mark, the loop is
    the program as given: e0 2, e1 3, the stores 3 and 4 (five groups). A
    latching loop's iteration is placed alike under either ordering."""
    hw = salam_hardware(configure("Enzyme32k"))
    fadd, fmul, integer = hw.latencies.fadd, hw.latencies.fmul, hw.latencies.integer
    added = with_additions(hw, ordering)
    (kernel,) = kernels_of(placed(REVERSE, added))
    schedule = schedule_of(kernel, added)
    assert (period_of(schedule), depth_of(schedule)) == (6, 6)
    assert compute_in_groups(schedule) == sorted(
        [(0, integer), (0, fadd), (0, fadd), (1, integer), (1, fadd), (1, fadd)]
        + [(2, fmul), (3, fmul), (3, fadd), (4, fadd)]
    )
    assert accesses_in_groups(schedule) == ((1, False), (2, False), (4, True), (5, True))
    (primal,) = kernels_of(placed(REVERSE.replace(" {tapeflow.rev_start}", ""), added))
    as_given = schedule_of(kernel, hw), schedule_of(primal, added)
    for schedule in as_given:
        assert (period_of(schedule), depth_of(schedule)) == (5, 5)
        assert accesses_in_groups(schedule) == ((1, False), (2, False), (3, True), (4, True))


def test_enzyme_llvm_adjoint_fadds_hold_overlapping_iterations_back() -> None:
    """The same body as an inner loop, under the strict ordering. By hand, at
    period P every load waits for the previous iteration's last store S
    (pending: the threshold lets the branch run ahead), from group S + 1 - P.
    With the fadds: at P = 3 the loads at S - 2 push S from 5 to 6, and so on
    without end; at P = 4 the loads go to group 2 (S = 5), {e0, e1} 3, {F0, F1}
    4, the stores 5, S + 1 - P = 2 again: six groups. Without them (the field
    off) P = 3: loads 2, mulfs 3, stores 4."""
    hw = salam_hardware(configure("Enzyme32k"))
    added = with_additions(hw)
    (kernel,) = kernels_of(placed(_reverse_nested(REVERSE), added))
    schedule = schedule_of(kernel, added)
    assert (period_of(schedule), depth_of(schedule)) == (4, 6)
    assert accesses_in_groups(schedule) == ((2, False), (2, False), (5, True), (5, True))
    schedule = schedule_of(kernel, hw)
    assert (period_of(schedule), depth_of(schedule)) == (3, 5)
    assert accesses_in_groups(schedule) == ((2, False), (2, False), (4, True), (4, True))


ACCUMULATE = """
func.func @k(%x: memref<8xf64>, %dx: memref<8xf64>, %g: f64) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %e = arith.mulf %g, %v : f64
    %s = memref.load %dx[%i] : memref<8xf64>
    %a = arith.addf %s, %e : f64
    memref.store %a, %dx[%i] : memref<8xf64>
  } {tapeflow.rev_start}
  func.return
}
"""


@pytest.mark.parametrize("ordering", ["strict", "release"])
def test_an_addition_into_a_shadow_starts_no_adjoint(ordering: str) -> None:
    """`dx[i] += g * x[i]`: the contribution e gets its fadd F, the addition of
    e into the shadow element (two adjoints) none. By hand: {L, R, v, s} 0,
    {e} 1, {F} 2, {a} 3 (after F), {store} 4; the next iteration once it drained."""
    hw = with_additions(salam_hardware(configure("Enzyme32k")), ordering)
    fadd, fmul = hw.latencies.fadd, hw.latencies.fmul
    (kernel,) = kernels_of(placed(ACCUMULATE, hw))
    schedule = schedule_of(kernel, hw)
    assert (period_of(schedule), depth_of(schedule)) == (5, 5)
    assert compute_in_groups(schedule) == [(0, fadd), (0, fadd), (1, fmul), (2, fadd), (3, fadd)]
    assert accesses_in_groups(schedule) == ((0, False), (0, False), (4, True))


def _carried_chain(links: int) -> str:
    """A reverse body carrying `acc * x[i] ** links * g` to the next iteration: the
    first product reads the carried value, whose sources reach back through the
    whole chain, as a fully unrolled body's copies chain."""
    products = [f"      %e{k} = arith.mulf %e{k - 1}, %v : f64" for k in range(1, links)]
    return f"""
func.func @k(%x: memref<8xf64>, %dx: memref<8xf64>, %g: f64) ATTRS {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %one) -> (f64) {{
      %v = memref.load %x[%i] : memref<8xf64>
      %e0 = arith.mulf %acc, %v : f64
{chr(10).join(products)}
      %t = arith.mulf %e{links - 1}, %g : f64
      memref.store %t, %dx[%i] : memref<8xf64>
      scf.yield %t : f64
  }} {{tapeflow.rev_start}}
  func.return
}}
"""


def test_a_chain_deeper_than_python_recursion_is_timed() -> None:
    """2,000 products between a carried value and the seed. The carried value is
    an adjoint (the previous iteration's `t`, computed from the seed `g`), so each
    product is a contribution: 2,001 fadds, and the seed's link and reader (as in
    the test above), 2,003 in all. A walk of the chain back from its first op goes
    deeper than Python's recursion limit."""
    links = 2000
    hw = with_additions(salam_hardware(configure("Enzyme32k")), "release")
    (kernel,) = kernels_of(placed(_carried_chain(links), hw))
    compute = [latency for _, latency in compute_in_groups(schedule_of(kernel, hw))]
    assert compute.count(hw.latencies.fmul) == links + 1
    assert compute.count(hw.latencies.fadd) == links + 1 + 2


SELECT = """
func.func @k(%x: memref<8xf64>, %y: memref<8xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %pos = arith.cmpf ogt, %v, %zero : f64
    %r = arith.select %pos, %v, %zero : f64
    %m = arith.mulf %r, %r : f64
    memref.store %m, %y[%i] : memref<8xf64>
  }
  func.return
}
"""


def test_select_takes_no_cycle() -> None:
    hw = salam_hardware(configure("Enzyme32k"))
    (kernel,) = kernels_of(placed(nested(SELECT), hw))
    latencies = lockstep_latencies(kernel, hw, SALAM)
    (select,) = [
        op
        for op in latencies
        if isinstance(op, cgra.ComputeOp) and op.opcode.data == "arith.select"
    ]
    assert latencies[select] == 0
    # {load} 0, {cmpf} 1 (1 cycle, `fcmp = 1` in CycleCounts.py), select and mulf
    # both 2, {store} 3.
    schedule = schedule_of(kernel, hw)
    assert compute_in_groups(schedule) == [(1, 1), (2, 4)]
    assert accesses_in_groups(schedule) == ((0, False), (3, True))


MIN_OF_TWO = """
func.func @k(%x: memref<9xf64>, %y: memref<8xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %j = arith.addi %i, %c1 : index
    %a = memref.load %x[%i] : memref<9xf64>
    %b = memref.load %x[%j] : memref<9xf64>
    %m = arith.minimumf %a, %b : f64
    %n = arith.maximumf %m, %a : f64
    %p = arith.mulf %n, %b : f64
    memref.store %p, %y[%i] : memref<8xf64>
  }
  func.return
}
"""


def test_a_min_or_max_takes_one_fcmp_cycle() -> None:
    # The authors' C writes a min as a compare and a select (`MIN` in
    # pathfinder.c): fcmp 1 cycle, select 0, not fadd's 5.
    hw = salam_hardware(configure("Enzyme32k"))
    (kernel,) = kernels_of(placed(nested(MIN_OF_TWO), hw))
    latencies = lockstep_latencies(kernel, hw, SALAM)
    by_opcode = {
        op.opcode.data: cycles for op, cycles in latencies.items() if isinstance(op, cgra.ComputeOp)
    }
    assert by_opcode["arith.minimumf"] == by_opcode["arith.maximumf"] == SALAM.fcmp == 1
    assert by_opcode["arith.mulf"] == 4
    # {addi j} 0, {load x[i], load x[j]} 1, {min} 2, {max} 3, {mulf} 4 (4
    # cycles), {store} 5: each a group after its operands, the min and the max
    # one cycle each. The store (5) is unissued when the next block is
    # scheduled, so the next load waits for it: 5 + 1 - period <= 1, period 5
    # (at 4 the loads would move to 2 and the store to 6, and so on).
    schedule = schedule_of(kernel, hw)
    assert compute_in_groups(schedule) == [(0, 1), (2, 1), (3, 1), (4, 4)]
    assert accesses_in_groups(schedule) == ((1, False), (1, False), (5, True))
    assert period_of(schedule) == 5


PRODUCT = """
func.func @f(%x: memref<16xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 16 : index
  %one = arith.constant 1.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %one) -> (f64) {
    %v = memref.load %x[%i] : memref<16xf64>
    %r = arith.mulf %a, %v : f64
    scf.yield %r : f64
  }
  func.return %s : f64
}
func.func @f_grad(%x: memref<16xf64>, %dx: memref<16xf64>) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>],
      ret_activity = [#enzyme.activity<enzyme_active>]}>
      : (memref<16xf64>, memref<16xf64>, f64) -> f64
  func.return %r : f64
}
"""


def gradient(
    model: str, preset: str, variant: str, **overrides: int
) -> tuple[dict[str, Any], Any, Any]:
    ctx = make_context()
    module = LocatingParser(ctx, PRODUCT, "product.mlir").parse_module()
    hardware = MODELS[model].hardware(configure(preset, **overrides))
    tape_bytes = prepare(ctx, module, variant, hardware, model=model)
    function = next(f for f in module.ops if f.sym_name.data == "f_grad")  # type: ignore[attr-defined]
    x = np.arange(1.0, 17.0) / 16
    args = bind_arguments(function, {"arg0": x})
    result = simulate(module, "f_grad", args, hardware, tape_bytes, model=model)
    return result.report, result.outputs, (module, hardware)


def fwd_kernel(module: Any) -> cgra.KernelOp:
    return next(
        k for k in kernels_of(module) if any(isinstance(o, cgra.StoreOp) for o in k.body.block.ops)
    )


def test_tape_bins_cost_their_issue_slot_only() -> None:
    _, _, (module, hw) = gradient("salam", "Tflow2k", "tapeflow")
    schedule = schedule_of(fwd_kernel(module), hw)
    # FWD (an outermost loop, whose latch drains only at its exit: its
    # iterations overlap): the tape stores of the running product and of x[i]
    # are bins, committed at once with no access, holding no load back: {load x}
    # 0, {mulf} 1.
    assert accesses_in_groups(schedule) == ((0, False),)
    assert not schedule.latching and depth_of(schedule) == 2
    # The baseline's same stores go through the cache, where the authors' Enzyme
    # put them: x[i]'s (the later value, cached first) right after its load, then
    # the product's (a loop-carried value: from the body's start) after the first
    # store that follows, x[i]'s. So no tape store precedes the load of x in the
    # authors' order: {store product, load x} 0, {store x[i], mulf} 1. (In our
    # order the product's store comes first and holds the load back a group.)
    _, _, (module, hw) = gradient("salam", "Enzyme32k", "enzyme")
    body = [op for op in fwd_kernel(module).body.block.ops if isinstance(op, cgra.PlacedOp)]
    product, load, _ = [op for op in body if isinstance(op, cgra.LoadOp | cgra.StoreOp)]
    assert authors_order(body).index(load) < authors_order(body).index(product)
    baseline = schedule_of(fwd_kernel(module), hw)
    assert accesses_in_groups(baseline) == ((0, True), (0, False), (1, True))
    assert depth_of(baseline) == 2


def test_tape_bins_are_free_under_salam_whatever_the_scratchpad() -> None:
    reports = [gradient("salam", "Tflow2k", "tapeflow", spad_bytes=s)[0] for s in (64, 512, 4096)]
    for r in reports[1:]:
        assert r["cycles"] == reports[0]["cycles"]
        assert r["dram_bytes"] == reports[0]["dram_bytes"]
    r = reports[0]
    assert r["cycles"]["stream_stall"] == 0
    # Only the spilled and fetched bytes are tape traffic.
    assert (
        r["dram_bytes"]["tape"] == r["streams"]["write_bytes"] + r["streams"]["read_bytes"] == 512
    )


def test_dram_traffic_counted_the_authors_way() -> None:
    # `cache_stat_extractor.py`: requests = misses + ceil(bin entries read / 8),
    # bytes = requests * 64. Their logsum at 16 KB (docs/research/gem5-salam.md
    # section 4): 1,250 forward and 2,499 reverse misses, 21 spilled bins of 512
    # entries read back (1,344 requests), 5,093 requests in all.
    assert authors_dram_bytes(1250 + 2499, 64, 21 * 512 * 8) == 5093 * 64
    assert authors_dram_bytes(3, 64, 8) == 4 * 64  # a part-filled request is one
    for variant, preset in (("tapeflow", "Tflow2k"), ("enzyme", "Enzyme32k")):
        r = gradient("salam", preset, variant)[0]
        fetched = r["streams"]["read_bytes"]
        requests = r["cache"]["misses"] + -(-fetched // 64)
        assert r["dram_bytes"]["authors"] == requests * 64
    assert fetched == 0  # the baseline has no bins


def test_salam_changes_the_timing_not_the_values() -> None:
    cgra_report, cgra_out = gradient("cgra", "Tflow2k", "tapeflow")[:2]
    salam_report, salam_out = gradient("salam", "Tflow2k", "tapeflow")[:2]
    for name, value in cgra_out.items():
        np.testing.assert_array_equal(salam_out[name], value)
    assert (cgra_report["model"], salam_report["model"]) == ("cgra", "salam")


# ------------------------------------------------------------------ cgra


def test_buffers_are_packed_at_64_bytes_and_page_alignment_is_an_option() -> None:
    a, b, c = np.zeros(3), np.zeros(3), np.zeros(3)
    packed = MemoryTrace()  # the default placement: from 4096, 64 B aligned
    paged = MemoryTrace(alignment=4096)
    for trace in (packed, paged):
        for arr in (a, b, c):
            trace.record(arr, (1,), False, False)
    assert packed.arrays()[0].tolist() == [4096 + 8, 4096 + 64 + 8, 4096 + 128 + 8]
    assert paged.arrays()[0].tolist() == [4096 + 8, 8192 + 8, 12288 + 8]
    assert configure("Enzyme32k").placement == PlacementConfig(base=4096, alignment=64)


CONFLICT = """
func.func @k(%a: memref<8xf64>, %b: memref<8xf64>, %c: memref<8xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %u = memref.load %a[%i] : memref<8xf64>
    %v = memref.load %b[%i] : memref<8xf64>
    %s = arith.addf %u, %v : f64
    memref.store %s, %c[%i] : memref<8xf64>
  }
  func.return
}
"""


@pytest.mark.parametrize(("alignment", "misses"), [(64, 3), (4096, 24)])
def test_page_aligned_arrays_conflict_in_a_small_cache(alignment: int, misses: int) -> None:
    # A 1 KB 2-way cache has 8 sets of 64 B lines. Packed, a, b and c (one line
    # each) sit in sets 0, 1, 2: one cold miss each. Page-aligned, all three map
    # to set 0, which holds two: a, b, c, a, b, c, ... under LRU every access misses.
    hw = configure("Enzyme1k")
    hw = replace(hw, placement=PlacementConfig(alignment=alignment))
    module = placed(CONFLICT, hw)
    data, _, _ = run(module, hw, [np.ones(8), np.ones(8), np.zeros(8)], "cgra")
    assert hw.cache.assoc == 2 and hw.cache.sets == 8
    assert data["cache"]["misses"] == misses


COPY = """
func.func @k(%x: memref<4096xf64>, %y: memref<4096xf64>) ATTRS {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4096 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<4096xf64>
    %w = arith.mulf %v, %two : f64
    memref.store %w, %y[%i] : memref<4096xf64>
  }
  func.return
}
"""


def test_a_cache_hit_occupies_its_port() -> None:
    hw = configure("Enzyme32k")
    module = placed(COPY, hw)
    (kernel,) = [op for op in module.walk() if isinstance(op, cgra.KernelOp)]
    assert kernel.ii.value.data == 1  # a load and a store on two ports
    data, _, _ = run(module, hw, [np.ones(4096), np.zeros(4096)], "cgra")
    # x and y: 512 lines each, one miss per line, the other 7 accesses hit.
    assert (data["cache"]["misses"], data["cache"]["hits"]) == (1024, 7168)
    # Memory side: 1024 misses in groups of 8 MSHRs x 100 cycles = 12800, plus
    # 7168 hits on 2 ports = 3584: 16384. It exceeds the compute (4095 x 1 plus
    # the length) and the bandwidth bound (at most 1536 lines x 64 B / 9.6 B per
    # cycle = 10240). Hidden under the misses, the hits would have cost nothing.
    # The grid loads the kernel's configuration once: its 3 placed ops, a cycle each.
    assert data["cycles"]["config"] == 3
    assert data["cycles"]["total"] == 12800 + 3584 + 3
    # The stall is what the memory side adds to the compute, (N-1)*ii + length
    # with the length of the placed kernel (the last result: a store, 1 cycle).
    length = max(
        op.cycle.value.data + 1 for op in kernel.body.block.ops if isinstance(op, cgra.StoreOp)
    )
    assert data["cycles"]["memory_stall"] == 16384 - (4095 * 1 + length)


def _windows(module: Any, args: list[Any], hardware: Any) -> tuple[Any, Any, Any]:
    """Run `@f_grad`; its recorder, its window table after the cache replay, and
    the outputs."""
    trace = MemoryTrace()
    recorder = TimingRecorder(trace, hardware)
    outputs = Executor(module, trace, recorder).run("f_grad", args)
    recorder.finish()
    addresses, writes, _ = trace.arrays()
    cache = simulate_cache(addresses, writes, hardware.cache)
    return recorder, window_table(recorder, cache, hardware), outputs


def _product_in_tiles(unroll: int = 1) -> tuple[Any, list[Any], Any]:
    """PRODUCT lowered for TapeFlow on a 64 B scratchpad with one tile in flight
    (its FWD loop cut into four tiles; pieces of 4 products when `unroll` is 16),
    streamed whatever the cost model would choose, the caller's arguments and the
    hardware."""
    ctx = make_context()
    module = LocatingParser(ctx, PRODUCT, "product.mlir").parse_module()
    hardware = configure("Tflow2k", spad_bytes=64)
    hardware = replace(
        hardware,
        mapping=replace(
            hardware.mapping, tiles_in_flight=1, loop_tiles_in_flight=1, stream_by_cost=False
        ),
    )
    prepare(ctx, module, "tapeflow", hardware, unroll)
    function = next(f for f in module.ops if f.sym_name.data == "f_grad")  # type: ignore[attr-defined]
    args = bind_arguments(function, {"arg0": np.arange(1.0, 17.0) / 16})
    return module, args, hardware


def _compute_only(module: Any, args: list[Any], hardware: Any) -> tuple[Any, Any, Any]:
    """Run `@f_grad`; the recorder, each window's cycles under `cgra` with the
    cache and the streams taken out of the picture (no hits, misses, DRAM bytes
    or stream stalls: the kernel windows' compute is what is tested), and the
    outputs."""
    recorder, table, outputs = _windows(module, args, hardware)
    quiet = replace(
        table,
        hits=np.zeros_like(table.hits),
        misses=np.zeros_like(table.misses),
        dram_bytes=np.zeros_like(table.dram_bytes),
        tiles=np.zeros((0, 6), dtype=np.int64),  # nor the streams (test_streams.py)
    )
    return recorder, CGRA.cycles(quiet, hardware).spent, outputs


def test_tiles_of_one_loop_overlap_across_layer_barriers() -> None:
    """The FWD loop of the product, strip-mined into 4 tiles of 4 rows (64 B
    scratchpad, 2 tape values per row): the first tile fills the pipeline, the
    next three continue it, so tiles 2-4 cost `trips * ii` instead of
    `(trips - 1) * ii + length`."""
    module, args, hardware = _product_in_tiles()
    recorder, spent, _ = _compute_only(module, args, hardware)
    # The tile loops (each tile's bookkeeping, its bounds and rows, runs in
    # kernels of its own, once per layer, in between).
    fwd_kernels = [
        i
        for i, w in enumerate(recorder.windows)
        if w.kind == "kernel" and w.phase == "fwd" and w.profile.looped
    ]
    assert len(fwd_kernels) == 4
    kernel = recorder.windows[fwd_kernels[0]].profile
    assert all(
        recorder.windows[i].kernel == recorder.windows[fwd_kernels[0]].kernel for i in fwd_kernels
    )
    # From the placed FWD kernel: ii 4 (the product's fmul, 4 cycles, carried);
    # length 6: the load of x issues at cycle 0 and hits (2 cycles), the fmul
    # issues on its PE at 2 and ends at 6. The tile's two scratchpad stores are
    # placed after them and end earlier (the scratchpad's 1 cycle).
    assert (kernel.ii, kernel.length, kernel.tiled) == (4, 6, True)
    # The first tile also loads the kernel's configuration (a cycle per placed op);
    # the grid keeps it while the bookkeeping kernels run.
    config = sum(kernel.fu_ops.values()) + kernel.memory_ops
    assert [int(spent[i]) for i in fwd_kernels] == [3 * 4 + 6 + config, 4 * 4, 4 * 4, 4 * 4]


def test_continued_tiles_share_the_miss_file_at_the_loops_rate() -> None:
    """The same four FWD tiles, each given 2 misses and no hits (8 MSHRs, DRAM
    latency 100): the first tile waits for a whole group of misses (100 cycles);
    the next three continue the loop, whose misses stream through the 8 MSHRs at
    8 per 100 cycles, so each adds 2 x 100 / 8 = 25 cycles, not a group of its
    own (which would be 100 per tile, as if the loop restarted at each barrier)."""
    module, args, hardware = _product_in_tiles()
    assert (hardware.cache.mshrs, hardware.dram.latency_cycles) == (8, 100)
    recorder, table, _ = _windows(module, args, hardware)
    fwd = [
        i
        for i, w in enumerate(recorder.windows)
        if w.kind == "kernel" and w.phase == "fwd" and w.profile.looped
    ]
    misses = np.zeros_like(table.misses)
    misses[fwd] = 2
    quiet = replace(
        table,
        hits=np.zeros_like(table.hits),
        misses=misses,
        dram_bytes=np.zeros_like(table.dram_bytes),
        tiles=np.zeros((0, 6), dtype=np.int64),
    )
    spent = CGRA.cycles(quiet, hardware).spent
    kernel = recorder.windows[fwd[0]].profile
    config = sum(kernel.fu_ops.values()) + kernel.memory_ops
    # Compute alone: 18 + config, then 16 per continued tile (the test above).
    assert [int(spent[i]) for i in fwd] == [100 + config, 25, 25, 25]


def test_tapeflow_sim_model_option(tmp_path: Any) -> None:
    """`tapeflow-sim --model` (its entry point in this process: the option is what
    is tested; test_simulator.py's `test_tapeflow_sim_command` runs the installed
    command)."""
    import contextlib
    import io
    import json
    import subprocess
    from pathlib import Path

    from tapeflow_benchmarks.kernels import KERNELS
    from tapeflow_tools import tapeflow_sim

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                tapeflow_sim.main(argv)
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
        return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())

    inputs = KERNELS["logsum"].inputs("small")
    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(inputs)})
    source = Path(__file__).parents[2] / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"
    outputs = {}
    for model in ("cgra", "salam"):
        done = run(
            [
                str(source),
                "--function",
                "logsum_grad",
                "--variant",
                "tapeflow",
                "--preset",
                "Tflow2k",
                "--model",
                model,
                "--inputs",
                str(tmp_path / "in.npz"),
                "--out",
                str(tmp_path / f"{model}.npz"),
                "--json",
                str(tmp_path / f"{model}.json"),
            ]
        )
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / f"{model}.json").read_text())
        assert report["model"] == model
        assert report["sram_bytes"] == 2048 + 512  # the preset's, under both models
        with np.load(tmp_path / f"{model}.npz") as out:
            outputs[model] = {k: out[k] for k in out.files}
    for name, value in outputs["cgra"].items():
        np.testing.assert_array_equal(outputs["salam"][name], value)
    bad = run(
        [
            str(source),
            "--function",
            "logsum_grad",
            "--variant",
            "tapeflow",
            "--preset",
            "Tflow2k",
            "--model",
            "gem5",
        ]
    )
    assert bad.returncode == 2 and "invalid choice: 'gem5'" in bad.stderr


def test_the_strip_mined_mark_is_the_one_tapeflow_layers_sets() -> None:
    from lowering.layers.records import ROWS_PER_ITERATION
    from targets.costs import STRIP_MINED

    assert STRIP_MINED == ROWS_PER_ITERATION


def test_a_layer_of_straight_line_dataflow_runs_as_one_kernel() -> None:
    """The product fully unrolled (one iteration of 16 products: 32 tape values)
    on a 64 B scratchpad (8 entries): `tapeflow-layers` cuts the iteration into
    pieces of 4 products, straight-line layers with no loop. Each piece is placed
    as one `cgra.kernel` run once per layer: its window is one trip costing the
    schedule's length (the last op's issue cycle plus its latency, read from the
    placed IR), not the ops' latencies one after another. The gradient is
    unchanged (prod / x_i)."""
    module, args, hardware = _product_in_tiles(16)
    x = np.arange(1.0, 17.0) / 16
    recorder, spent, outputs = _compute_only(module, args, hardware)
    assert outputs[0] == np.prod(x)
    np.testing.assert_allclose(args[1], np.prod(x) / x, rtol=1e-14)
    straight = [
        k
        for k in module.walk()
        if isinstance(k, cgra.KernelOp) and not is_kernel_loop(k.parent_op())
    ]
    assert len(straight) >= 4  # the FWD pieces (and REV's)
    windows = [(i, w) for i, w in enumerate(recorder.windows) if w.kind == "kernel"]
    assert windows and all(w.trips == 1 for _, w in windows)
    lengths = set()
    for kernel in straight:
        ops = [o for o in kernel.body.block.ops if isinstance(o, cgra.PlacedOp)]
        length = max(o.cycle.value.data + op_latency(o, hardware) for o in ops)
        serial = sum(op_latency(o, hardware) for o in ops)
        assert length <= serial
        if any(isinstance(o, cgra.StoreOp) and o.path.data == MemPath.SPAD for o in ops):
            assert length < serial  # a piece's products run side by side
        lengths.add(length)
    loaded = set()  # each kernel runs once: the grid loads its configuration then
    for i, w in windows:
        config = 0 if w.kernel in loaded else sum(w.profile.fu_ops.values()) + w.profile.memory_ops
        loaded.add(w.kernel)
        assert int(spent[i]) == w.profile.length + config
    assert {w.profile.length for _, w in windows} == lengths


@pytest.mark.parametrize("variant", ["enzyme", "tapeflow"])
def test_kernel_profile_counts_what_op_latency_and_op_class_say(variant: str) -> None:
    """`kernel_profile` reads a compute op's class once for its latency and its
    count: its length and op mix are the plain sums over `op_latency` and
    `op_class` of every placed op."""
    ctx = make_context()
    module = parse_kernel(ctx, "logsum", "small")
    hardware = configure("Enzyme32k" if variant == "enzyme" else "Tflow2k")
    prepare(ctx, module, variant, hardware, unroll=4)
    kernels = [op for op in module.walk() if isinstance(op, cgra.KernelOp)]
    assert kernels
    for kernel in kernels:
        placed = [op for op in kernel.body.block.ops if isinstance(op, cgra.PlacedOp)]
        profile = kernel_profile(kernel, hardware)
        assert profile.length == max(
            (op.cycle.value.data + op_latency(op, hardware) for op in placed), default=0
        )
        computes = [op for op in placed if isinstance(op, cgra.ComputeOp)]
        assert profile.fu_ops == Counter(op_class(op.opcode.data) for op in computes)
        assert profile.memory_ops == len(placed) - len(computes)


def _salam_cycles_by_masks(windows: Any, hardware: Any) -> tuple[np.ndarray, np.ndarray]:
    """The salam model's windows' cycles and busy cycles with each kernel's
    windows found by a mask over every kernel window (the yardstick of
    `SalamModel.cycles`, which groups them by one stable sort)."""
    from sim.models.salam.model import _gather, _runs

    hit, miss = SALAM_MODEL.machine.hit_expected, SALAM_MODEL.machine.miss_expected
    ports = hardware.datapath.ports
    spent = windows.compute + windows.hits * hit + windows.misses * miss
    busy = windows.compute + (windows.hits + windows.misses) * hit
    latency = np.where(windows.access_hit, hit, miss)
    kernels, run_of = _runs(windows)
    ids = windows.kernel_id[kernels]
    for kernel in sorted(set(ids.tolist())):
        mine = ids == kernel
        members = kernels[mine]
        runs = run_of[mine]
        which = np.cumsum(np.concatenate(([0], runs[1:] != runs[:-1])))
        sizes = np.bincount(which)
        trips = windows.trips[members]
        totals = np.bincount(which, weights=trips, minlength=sizes.size).astype(np.int64)
        taken = _gather(windows, members, latency)
        cycles = runs_cycles(windows.plans[kernel], totals, taken, ports)
        all_hit = all_hits_cycles(windows.plans[kernel], totals, hit, ports)
        total = totals[which]
        share = np.divide(trips, total, out=1.0 / sizes[which], where=total > 0)
        spent[members] = cycles[which] * share
        busy[members] = np.minimum(all_hit, cycles)[which] * share
    return whole_cycles(spent), whole_cycles(busy)


@pytest.mark.parametrize(
    ("key", "variant", "preset"),
    [
        ("lenet", "tapeflow", "Tflow2k"),
        ("pathfinder", "enzyme", "Enzyme32k"),
        ("nn", "tapeflow", "Tflow2k"),
    ],
)
def test_salam_cycles_group_each_kernels_windows_as_masks_do(
    key: str, variant: str, preset: str
) -> None:
    """`SalamModel.cycles` on real runs (many kernels, each run many times, and
    under two caches) gives each window the cycles and busy cycles that finding
    each kernel's windows by a mask gives."""
    from sim.simulator import evaluate, execute
    from tapeflow_benchmarks.common import caller_arguments

    ctx = make_context()
    module = parse_kernel(ctx, key, "small")
    hardware = SALAM_MODEL.hardware(configure(preset))
    tape_bytes = prepare(ctx, module, variant, hardware, 1, "salam")
    args = caller_arguments(module, key, "small")
    execution = execute(
        module, f"{key}_grad", args, hardware, tape_bytes, variant=variant, model="salam"
    )
    kernels = {w.kernel for w in execution.recorder.windows if w.kind == "kernel"}
    assert len(kernels) > 1
    for machine in (
        hardware,
        replace(hardware, cache=replace(hardware.cache, size_bytes=1024, assoc=2)),
    ):
        evaluate(execution, machine)
        table = window_table(execution.recorder, execution.replays[machine.cache], machine)
        timed = SALAM_MODEL.cycles(table, machine)
        spent, busy = _salam_cycles_by_masks(table, machine)
        assert timed.spent.tolist() == spent.tolist()
        assert timed.busy.tolist() == busy.tolist()


def _runs_cycles_before(
    schedule: ByHand, trips: np.ndarray, latency: np.ndarray, ports: int
) -> np.ndarray:
    """`runs_cycles` as it was computed before its counts' terms were kept per
    ports: each kind's columns by a boolean mask, the rounds and the mean made
    from the integer counts on every call."""
    layout = _layout(replace(schedule, laid_out={}), trips)
    accesses = len(schedule.accesses)
    cost = layout.computed.copy()
    took_all = latency.reshape(-1, accesses)
    for kind, where, count in zip(layout.kinds, layout.places, layout.counts, strict=True):
        took = took_all[:, kind].ravel()
        total = np.bincount(where, weights=took, minlength=cost.size)
        longest = np.zeros(cost.size)
        np.maximum.at(longest, where, took)
        rounds = -(-count // ports)
        mean = np.divide(total, count, out=np.zeros(cost.size), where=count > 0)
        np.maximum(cost, np.maximum(longest, rounds * mean), out=cost)
    sums = np.zeros(len(trips))
    if layout.active.any():
        sums[layout.active] = np.add.reduceat(cost, layout.begin[:-1][layout.active])
    return sums


def _runs_cycles_by_definition(
    schedule: ByHand, trips: np.ndarray, latency: np.ndarray, ports: int
) -> list[float]:
    """Each run alone, group by group in Python: a group takes its slowest
    compute op (at least one tick) or, per kind (reads, writes), its slowest
    access or its rounds of `ports` requests at their mean, whichever is
    longest; a run takes the sum of the groups up to the last its ops reach."""
    accesses = len(schedule.accesses)
    sums, at = [], 0
    for n in trips.tolist():
        if n == 0:
            sums.append(0.0)
            continue
        rows = schedule.groups(n)
        span = int(rows.max()) + 1
        cost = [1.0] * span
        for t in range(n):
            for position, cycles in schedule.compute:
                g = int(rows[t, position])
                cost[g] = max(cost[g], float(cycles))
        for write in (False, True):
            took: dict[int, list[float]] = {}
            for t in range(n):
                for j, (position, w) in enumerate(schedule.accesses):
                    if w == write:
                        took.setdefault(int(rows[t, position]), []).append(
                            float(latency[at + t * accesses + j])
                        )
            for g, times in took.items():
                rounds = -(-len(times) // ports)
                cost[g] = max(cost[g], max(times), rounds * sum(times) / len(times))
        sums.append(sum(cost))
        at += n * accesses
    return sums


@pytest.mark.parametrize("ports", [1, 2, 3])
def test_a_batch_of_runs_is_timed_as_before_its_terms_were_kept(ports: int) -> None:
    """`runs_cycles` keeps each kind's divisor and rounds per ports on the
    layout and takes a kind's columns by `take`: the same numbers, bit for bit,
    as the formula before, on random schedules (reads only, writes only, both;
    several accesses in one group), trips (none, zeros) and request times, and
    the definition's, group by group."""
    rng = np.random.default_rng(ports)
    hit, miss = SALAM.hit_expected, SALAM.miss_expected
    for case in range(40):
        ops = int(rng.integers(2, 7))
        period = int(rng.integers(1, 4))
        first = tuple(int(g) for g in rng.integers(0, 5, size=ops))
        positions = rng.permutation(ops)
        n_access = int(rng.integers(1, ops))
        writes = [bool(w) for w in rng.random(n_access) < [0.0, 1.0, 0.4][case % 3]]
        accesses = tuple(
            (int(p), w) for p, w in zip(positions[:n_access].tolist(), writes, strict=True)
        )
        compute = tuple((int(p), int(rng.integers(1, 6))) for p in positions[n_access:].tolist())
        schedule = ByHand(period, first, compute, accesses)
        trips = rng.integers(0, 6, size=int(rng.integers(1, 6)))
        if case % 7 == 0:
            trips[:] = 0  # no access of either kind at all
        size = int(trips.sum()) * n_access
        latency = (
            np.where(rng.random(size) < 0.7, hit, miss) if case % 2 else rng.random(size) * 50.0
        )
        now = runs_cycles(schedule, trips, latency, ports)
        assert now.tobytes() == _runs_cycles_before(schedule, trips, latency, ports).tobytes()
        # Kept on the schedule: a second machine of the sweep takes the kept terms.
        again = runs_cycles(schedule, trips, latency[::-1].copy(), ports)
        before = _runs_cycles_before(schedule, trips, latency[::-1].copy(), ports)
        assert again.tobytes() == before.tobytes()
        assert now.tolist() == pytest.approx(
            _runs_cycles_by_definition(schedule, trips, latency, ports), rel=1e-12
        )
