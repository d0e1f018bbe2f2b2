"""
While loops are differentiated: `tapeflow-enzyme` first
rewrites each `scf.while` into an `scf.for` (`tapeflow-while-to-for`), counted,
bounded by a counter, or counted by a first run of its control slice, and the
gradient then goes through every stage. Kernels under `while_loops/`, each
naming its source.

For each kernel:

- the rewrite picked is the expected one (`METHODS`; a first run's control slice
  may hold a loop that reads only buffers the while loop does not write: the
  row's reduction of `row_newton`);
- the primal run with its `scf.while` computes what a Python transcription of
  the loop computes (so the kernel is what it claims), and the rewritten primal
  computes the same bits;
- the Enzyme gradient equals central differences of the *original* primal (the
  one with `scf.while`, run by the reference executor), and, where there is one,
  the analytic derivative (Newton: 1 / (2 sqrt a));
- every later stage computes exactly the Enzyme stage's values: raise-tape,
  `tapeflow-pipeline{spad-bytes=64|512|4096 unroll=1|2}`, and the simulator's
  enzyme, aos and tapeflow variants.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from stage_checks import (
    EnzymeStages,
    assert_matches_central_differences,
    check_stages,
    same_bits,
    stage_tests,
)
from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType, ModuleOp

from lowering.tapeflow_enzyme import TapeflowEnzymePass
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_while_to_for import Counter, find_counter, while_to_for
from tapeflow_dialects import tape
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser
from tapeflow_tools.tapeflow_run import run_function

FOLDER = Path(__file__).parent / "while_loops"


def uplift_while(x: np.ndarray, y: np.ndarray, begin: int, end: int, step: int) -> None:
    acc, i = 0.0, begin
    while i < end:
        acc += math.sin(x[i]) * y[i]
        y[i] = acc * y[i]
        i += step


def do_while(x: np.ndarray, y: np.ndarray) -> None:
    i = 0
    while True:
        y[i] = math.exp(x[i]) * y[i]
        i += 1
        if not i < 5:
            break
        x[i] = math.cos(x[i])


def newton_sqrt(a: np.ndarray, out: np.ndarray) -> None:
    out[:] = np.sqrt(a)


def bisection(a: np.ndarray, out: np.ndarray) -> None:
    lo, hi = 0.0, a[0] + 1.0
    while hi - lo > 1e-3:
        mid = (lo + hi) * 0.5
        lo, hi = (mid, hi) if mid * mid * mid - a[0] < 0 else (lo, mid)
    fl, fh = lo * lo * lo - a[0], hi * hi * hi - a[0]
    out[0] = lo - fl * ((hi - lo) / (fh - fl))


def running_sum(x: np.ndarray, y: np.ndarray) -> None:
    k, s = 0, 0.0
    while s < 2.0:
        s += x[k] * x[k]
        y[k] = s * y[k]
        k += 1


def power_iteration(A: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    k, lam, old = 0, 0.0, 1e30
    while k < 40 and abs(lam - old) > 1e-12:
        w = [sum((A[i, j] * v[j] for j in range(4)), 0.0) for i in range(4)]
        old, lam = lam, sum((w[i] * v[i] for i in range(4)), 0.0)
        norm = math.sqrt(sum((w[i] * w[i] for i in range(4)), 0.0))
        v[:] = [w[i] / norm for i in range(4)]
        k += 1
    out[0] = lam


def row_newton(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> None:
    for r in range(a.shape[0]):
        x = 0.0
        while True:
            f = g = 0.0
            for j in range(a.shape[1]):
                th = math.tanh(x * a[r, j])
                f, g = f + th, g + a[r, j] * (1.0 - th * th)
            step = (f - b[r]) / g
            x -= step
            if not abs(step) > 1e-12:
                break
        t[r] = x


def unsigned_stride(x: np.ndarray, y: np.ndarray, last: int) -> None:
    acc, i = 0.0, 0
    while i <= last:
        acc += math.exp(-x[i]) * y[i]
        y[i] = acc
        i += 3


def _symmetric(rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.uniform(-1, 1, (4, 4)))
    return q @ np.diag([4.0, 1.0, 0.5, 0.2]) @ q.T


@dataclass(frozen=True)
class Kernel:
    inputs: Callable[[np.random.Generator], tuple[list[np.ndarray], list[int]]]
    """The primal's buffers and index arguments."""
    reference: Callable[..., None]
    method: str
    """The rewrite `tapeflow-while-to-for` must pick: counted, bounded or first run."""
    rtol: float = 1e-12


KERNELS = {
    "uplift_while": Kernel(
        lambda rng: ([rng.uniform(-1, 1, 9), rng.uniform(-1, 1, 9)], [1, 8, 2]),
        uplift_while,
        "counted",
    ),
    "do_while": Kernel(
        lambda rng: ([rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6)], []), do_while, "counted"
    ),
    "newton_sqrt": Kernel(
        lambda rng: ([rng.uniform(0.5, 3, 4), np.zeros(4)], []), newton_sqrt, "first run", 1e-15
    ),
    "bisection": Kernel(
        lambda rng: ([rng.uniform(0.5, 3, 1), np.zeros(1)], []), bisection, "first run"
    ),
    "running_sum": Kernel(
        lambda rng: ([rng.uniform(0.6, 1, 8), rng.uniform(-1, 1, 8)], []), running_sum, "first run"
    ),
    "power_iteration": Kernel(
        lambda rng: ([_symmetric(rng), np.full(4, 0.5), np.zeros(1)], []),
        power_iteration,
        "bounded",
        1e-10,
    ),
    "row_newton": Kernel(
        lambda rng: ([rng.uniform(0.5, 1.5, (2, 3)), rng.uniform(0.3, 1.2, 2), np.zeros(2)], []),
        row_newton,
        "first run",
    ),
    "unsigned_stride": Kernel(
        lambda rng: ([rng.uniform(-1, 1, 10), rng.uniform(-1, 1, 10)], [8]),
        unsigned_stride,
        "counted",
    ),
}
NAMES = sorted(KERNELS)
assert set(NAMES) == {p.stem for p in FOLDER.glob("*.mlir")}


def parse(name: str) -> ModuleOp:
    path = FOLDER / f"{name}.mlir"
    return LocatingParser(make_context(), path.read_text(), str(path)).parse_module()


def primal_inputs(name: str) -> tuple[list[np.ndarray], list[int]]:
    return KERNELS[name].inputs(np.random.default_rng(sum(map(ord, name))))


def _primal_args(name: str) -> dict[str, np.ndarray]:
    buffers, indices = primal_inputs(name)
    args = {f"arg{i}": b.copy() for i, b in enumerate(buffers)}
    args.update({f"arg{len(buffers) + j}": np.array(v) for j, v in enumerate(indices)})
    return args


def _differentiated(name: str) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """The Enzyme stage and the caller's inputs: each buffer with a seed, then
    the index arguments."""
    module = parse(name)
    TapeflowEnzymePass().apply(make_context(), module)
    module.verify()
    buffers, indices = primal_inputs(name)
    rng = np.random.default_rng(11)
    given: dict[str, np.ndarray] = {}
    for i, value in enumerate(buffers):
        given[f"arg{2 * i}"] = value
        given[f"arg{2 * i + 1}"] = rng.uniform(-1, 1, value.shape)
    for j, value in enumerate(indices):
        given[f"arg{2 * len(buffers) + j}"] = np.array(value)
    return module, given


enzyme_stage = EnzymeStages(_differentiated)


def _method(name: str) -> str:
    module = parse(name)
    (loop,) = [op for op in module.walk() if isinstance(op, scf.WhileOp)]
    counter = find_counter(loop)
    assert not while_to_for(module)
    whiles = [op for op in module.walk() if isinstance(op, scf.WhileOp)]
    if whiles:
        return "first run"  # the counting loop of the control slice
    assert isinstance(counter, Counter)
    return "bounded" if any(isinstance(op, scf.IfOp) for op in module.walk()) else "counted"


@pytest.mark.parametrize("name", NAMES)
def test_the_rewrite_is_the_expected_one(name: str) -> None:
    assert _method(name) == KERNELS[name].method


@pytest.mark.parametrize("name", NAMES)
def test_the_primal_computes_its_reference_before_and_after_the_rewrite(name: str) -> None:
    args = _primal_args(name)
    got = run_function(parse(name), "f", {k: v.copy() for k, v in args.items()})
    buffers, indices = primal_inputs(name)
    KERNELS[name].reference(*buffers, *indices)
    for i, want in enumerate(buffers):
        np.testing.assert_allclose(
            got[f"arg{i}"], want, rtol=KERNELS[name].rtol, atol=1e-14, err_msg=f"arg{i}"
        )
    rewritten = parse(name)
    while_to_for(rewritten)
    again = run_function(rewritten, "f", {k: v.copy() for k, v in args.items()})
    assert same_bits(again, got) is None


@pytest.mark.parametrize("name", NAMES)
def test_the_enzyme_gradient_equals_central_differences_of_the_while_loop(name: str) -> None:
    _, given, reference = enzyme_stage(name)
    buffers, indices = primal_inputs(name)
    args = [*buffers, *(np.array(v) for v in indices)]
    seeds = [*(given[f"arg{2 * i + 1}"] for i in range(len(buffers))), *(None for _ in indices)]
    gradients = [reference[f"arg{2 * i + 1}"] for i in range(len(buffers))]
    assert_matches_central_differences(parse(name), args, seeds, gradients, name)


def test_newton_gives_the_derivative_of_the_square_root() -> None:
    _, given, reference = enzyme_stage("newton_sqrt")
    a, seed = given["arg0"], given["arg3"]
    np.testing.assert_allclose(
        reference["arg1"], given["arg1"] + seed / (2 * np.sqrt(a)), rtol=1e-12
    )


def test_power_iteration_gives_the_derivative_of_the_eigenvalue() -> None:
    """For a symmetric A with a simple dominant eigenvalue, d lambda / dA = u u^T
    (u the unit eigenvector; Magnus 1985): with the eigenvalue's seed alone, the
    gradient is seed * u u^T once the iteration has converged."""
    module, given, _ = enzyme_stage("power_iteration")
    seeded = {k: v.copy() for k, v in given.items()}
    seeded["arg1"] = np.zeros((4, 4))
    seeded["arg3"] = np.zeros(4)
    got = run_function(module, "f_grad", seeded)
    values, vectors = np.linalg.eigh(given["arg0"])
    u = vectors[:, np.argmax(values)]
    np.testing.assert_allclose(got["arg1"], given["arg5"][0] * np.outer(u, u), atol=1e-6)


(
    test_raise_tape_keeps_the_values,
    test_pipeline_keeps_the_values,
    test_simulator_keeps_the_values,
    test_recompute_keeps_the_values,
) = stage_tests(enzyme_stage, NAMES)


@pytest.mark.parametrize("name", ["bisection", "newton_sqrt"])
def test_a_data_dependent_trip_count_gives_run_time_tapes(name: str) -> None:
    """A loop counted by a first run is replayed as `scf.for 0 to %n`: Enzyme
    caches its values in buffers of run-time extent, which raise-tape makes tapes
    with a `?` extent. Newton's loop runs once per element, inside a loop: Enzyme
    allocates a buffer per element, and the tape's `?` extent is the largest
    count, computed before the forward sweep by replaying the counting loops
    (they have no side effects and read only `a`, which the sweep does not write)."""
    module, _, _ = enzyme_stage(name)
    (report,) = raise_module(module)
    assert not report.kept
    tapes = [op.tape.type for op in module.walk() if isinstance(op, tape.AllocOp)]
    assert tapes and any(not t.is_static() for t in tapes)
    assert all(not isinstance(t.element_type, MemRefType) for t in tapes)


ENZYME_JAX_WHILE3 = """
func.func @f(%x: f64) -> f64 {
  %i0 = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %three = arith.constant 3 : i64
  %r:2 = scf.while (%i = %i0, %s = %x) : (i64, f64) -> (i64, f64) {
    %c = arith.cmpi slt, %i, %three : i64
    scf.condition(%c) %i, %s : i64, f64
  } do {
  ^bb0(%i2: i64, %s2: f64):
    %n = arith.mulf %s2, %s2 : f64
    %i3 = arith.addi %i2, %one : i64
    scf.yield %i3, %n : i64, f64
  }
  return %r#1 : f64
}
func.func @f_grad(%x: f64) -> f64 {
  %seed = arith.constant 1.0 : f64
  %r = enzyme.autodiff @f(%x, %seed) {activity = [#enzyme<activity enzyme_active>], ret_activity = \
[#enzyme<activity enzyme_activenoneed>]} : (f64, f64) -> f64
  return %r : f64
}
"""


def test_an_active_scalar_through_an_i64_counted_while() -> None:
    """Enzyme-JAX's test/lit_tests/diffrules/stablehlo/while3.mlir in scf form: an
    i64 counter to 3 squaring x, so f = x^8 and f'(2) = 8 * 2^7 = 1024 (the value
    that test expects), the same at every stage."""
    results = check_stages(ENZYME_JAX_WHILE3, "f_grad", {"arg0": np.array(2.0)}, unrolls=(1, 2))
    assert set(results.reference) == {"result0"}
    np.testing.assert_array_equal(results.reference["result0"], 1024.0)


COUNTED_I64 = """
func.func @f(%lb: i64, %ub: i64) -> (i64, i64) {{
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %s = arith.constant {step} : i64
  %r:2 = scf.while (%i = %lb, %n = %c0) : (i64, i64) -> (i64, i64) {{
    %go = arith.cmpi slt, %i, %ub : i64
    scf.condition(%go) %i, %n : i64, i64
  }} do {{
  ^bb0(%i2: i64, %n2: i64):
    %next = arith.addi %i2, %s : i64
    %m = arith.addi %n2, %c1 : i64
    scf.yield %next, %m : i64, i64
  }}
  return %r#0, %r#1 : i64, i64
}}
"""


@pytest.mark.parametrize(
    ("lb", "ub", "step", "last", "trips"),
    [
        # ub - lb = 2^64 - 2 wraps to -2: the signed count was 0.
        (-(2**63), 2**63 - 2, 2**63 - 1, 2**63 - 2, 2),
        # ub - lb = 2^63, one past the signed range: -2^62, 0, then 2^62 = ub.
        (-(2**62), 2**62, 2**62, 2**62, 2),
        # ub - lb = 2^63 - 1, the largest signed difference: -2^62, 0, then 2^62.
        (-(2**62), 2**62 - 1, 2**62, 2**62, 2),
        # ub - lb = 2^63 with three trips: -2^62 + 1, 0, 2^62 - 1, then 2^63 - 2.
        (-(2**62) + 1, 2**62 + 1, 2**62 - 1, 2**63 - 2, 3),
        # An ordinary non-multiple range, and an empty one.
        (-5, 7, 4, 7, 3),
        (7, -5, 4, 7, 0),
    ],
)
def test_a_counted_while_counts_exactly_where_ub_minus_lb_overflows(
    lb: int, ub: int, step: int, last: int, trips: int
) -> None:
    """The counted loop's trip count is `lb < ub ? ceildivui(ub - lb, s) : 0`
    (shared with tapeflow-unit-steps): the expected counter and count are Python
    integers' (`range`), the original `scf.while` computes them, and so does the
    rewritten loop."""
    values = range(lb, ub, step)
    assert (len(values), values[-1] + step if values else lb) == (trips, last)
    text = COUNTED_I64.format(step=step)
    args = {"arg0": np.array(lb, dtype=np.int64), "arg1": np.array(ub, dtype=np.int64)}
    original = LocatingParser(make_context(), text, "counted_i64.mlir").parse_module()
    got = run_function(original, "f", {k: v.copy() for k, v in args.items()})
    assert (int(got["result0"]), int(got["result1"])) == (last, trips)
    rewritten = original.clone()
    assert while_to_for(rewritten) == []
    assert not [o for o in rewritten.walk() if isinstance(o, scf.WhileOp)]
    again = run_function(rewritten, "f", {k: v.copy() for k, v in args.items()})
    assert (int(again["result0"]), int(again["result1"])) == (last, trips)


COUNTED_UNSIGNED = """
func.func @f(%lb: {ty}, %ub: {ty}) -> ({ty}, {ty}) {{
  %c0 = arith.constant 0 : {ty}
  %c1 = arith.constant 1 : {ty}
  %s = arith.constant {step} : {ty}
  %r:2 = scf.while (%i = %lb, %n = %c0) : ({ty}, {ty}) -> ({ty}, {ty}) {{
    %go = arith.cmpi {test} : {ty}
    scf.condition(%go) %i, %n : {ty}, {ty}
  }} do {{
  ^bb0(%i2: {ty}, %n2: {ty}):
    %next = arith.addi %i2, %s : {ty}
    %m = arith.addi %n2, %c1 : {ty}
    scf.yield %next, %m : {ty}, {ty}
  }}
  return %r#0, %r#1 : {ty}, {ty}
}}
"""

UNSIGNED_TESTS = {"ult": "ult, %i, %ub", "ule": "ule, %i, %ub", "ugt": "ugt, %ub, %i"}
UNSIGNED_TESTS["uge"] = "uge, %ub, %i"


@pytest.mark.parametrize("test", sorted(UNSIGNED_TESTS))
@pytest.mark.parametrize(
    ("width", "lb", "ub", "step"),
    [
        # Both below 2^(w-1): what a signed test would count too.
        (64, 3, 17, 4),
        # ub at or past 2^63: negative as a signed value, the signed count 0.
        (64, 2**63 - 3, 2**63 + 5, 3),
        (64, 5, 2**64 - 2**62, 2**62),
        # lb past ub (unsigned): no trip, though lb < ub signed.
        (64, 2**63 + 1, 4, 1),
        # A 32-bit counter (C's unsigned int) past 2^31: zero-extended.
        (32, 2**31 - 2, 2**31 + 7, 2),
        (32, 0, 10, 3),
    ],
)
def test_an_unsigned_counter_counts_as_unsigned_values(
    test: str, width: int, lb: int, ub: int, step: int
) -> None:
    """`ult`, `ule` and their mirrored forms (`ugt`, `uge` with the bound first)
    are counted: the expected counter and count are Python integers' (`range` over
    the unsigned values), the original `scf.while` computes them, and so does
    the rewritten loop."""
    inclusive = test in ("ule", "uge")
    values = range(lb, ub + inclusive, step)
    trips, last = len(values), lb + len(values) * step
    assert last < 2**width  # the counter does not wrap: the while loop ends

    def signed(v: int) -> int:
        v %= 2**width
        return v - 2**width if v >= 2 ** (width - 1) else v

    kind = np.int64 if width == 64 else np.int32
    text = COUNTED_UNSIGNED.format(ty=f"i{width}", step=signed(step), test=UNSIGNED_TESTS[test])
    args = {"arg0": np.array(signed(lb), dtype=kind), "arg1": np.array(signed(ub), dtype=kind)}
    original = LocatingParser(make_context(), text, f"unsigned_{test}.mlir").parse_module()
    got = run_function(original, "f", {k: v.copy() for k, v in args.items()})
    assert (int(got["result0"]), int(got["result1"])) == (signed(last), trips)
    rewritten = original.clone()
    assert while_to_for(rewritten) == []
    assert not [o for o in rewritten.walk() if isinstance(o, scf.WhileOp)]
    again = run_function(rewritten, "f", {k: v.copy() for k, v in args.items()})
    assert (int(again["result0"]), int(again["result1"])) == (signed(last), trips)
