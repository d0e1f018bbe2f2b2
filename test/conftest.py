"""
Shared by the tests: each kernel's module after the real Enzyme, computed once.

The benchmark kernels, Enzyme and the tools are imported inside the fixtures, not
here, so that a test of the dialects or the passes alone needs none of them.
"""

from __future__ import annotations

import gc
import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import numpy as np
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

PRESET = "small"


@contextmanager
def _asserts_as_written() -> Iterator[None]:
    """Modules imported inside are loaded as Python loads them, not through
    pytest's assertion rewriting. pytest rewrites every module of a distribution
    that registers a pytest plugin (hypothesis's 73, for its `--hypothesis-*`
    options), from source in each worker: the rewritten code is cached beside the
    source only where bytecode is written (never under `PYTHONDONTWRITEBYTECODE`),
    and the compiled files pip wrote are not used for it. Only those packages'
    own internal asserts are concerned; the tests' asserts are rewritten as always."""
    rewriters = [f for f in sys.meta_path if type(f).__name__ == "AssertionRewritingHook"]
    for finder in rewriters:
        sys.meta_path.remove(finder)
    try:
        yield
    finally:
        sys.meta_path[0:0] = rewriters


GC_THRESHOLDS = (50_000, 20, 100)
"""Python's cycle collector in the test processes: a young collection after 50,000
allocations instead of 700, an older one after 20 young ones, the full one after
100 older ones. A test builds and drops IR by the million objects (parsing,
passes, copies of the session's kept modules), and each collection walks every
object still young, the modules just made included; the session's caches keep
most of what survives. The same cycles are freed, later and in fewer walks (the
simulator's `prepare` and runs turn the collector off for the same reason)."""

gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture
def collector_sees_this_test_only() -> Iterator[None]:
    """What the process held before the test (the session's caches and kept
    modules, the imported code) in the cycle collector's permanent generation
    while the test runs (`gc.freeze`), put back after it (`gc.unfreeze`): the
    full collections of a test that looks for reference cycles walk only the
    objects the test made, not the whole process (some 0.3 s a collection in
    a worker midway through the suite). Cycles among the test's own objects are
    found as before, those through an object from before the test are not
    looked for (they are no garbage of the test's while that object lives)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


try:  # the property tests' budgets: `pytest --hypothesis-profile=campaign` for the long run
    with _asserts_as_written():
        import hypothesis.strategies  # noqa: F401 - what the property tests use, loaded here
        from hypothesis import settings

    settings.register_profile("default", max_examples=8, deadline=None, derandomize=True)
    settings.register_profile("campaign", max_examples=1000, deadline=None)
    settings.load_profile("default")
except ImportError:  # hypothesis is a test dependency; without it those tests are not collected
    pass


def _environment_stamp() -> tuple[tuple[str, int], ...]:
    """What the installed `xdsl.universe` entry points depend on: the import path's
    folders and their modification times (installing or removing a distribution
    adds or removes a `*.dist-info` folder in one of them)."""
    stamp = []
    for entry in sys.path:
        try:
            stamp.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            stamp.append((entry, -1))
    return tuple(stamp)


def _memoize_multiverse() -> None:
    """`Universe.get_multiverse()` (every xDSL and TapeFlow dialect and pass, found
    through the installed entry points) once per environment instead of at every
    call: `make_context` and every in-process `tapeflow-opt` or `xdsl-opt` call
    scan every installed distribution's metadata for it (some 5 ms each, thousands
    of times in a suite). Each call returns a fresh `Universe` of the same
    entries; a changed import path or installation makes it scan again."""
    from xdsl.universe import Universe

    scan = Universe.get_multiverse
    memo: dict[tuple[tuple[str, int], ...], Universe] = {}

    def get_multiverse() -> Universe:
        key = _environment_stamp()
        if key not in memo:
            memo.clear()
            memo[key] = scan()
        found = memo[key]
        return Universe(
            all_dialects=dict(found.all_dialects),
            all_passes=dict(found.all_passes),
            all_targets=dict(found.all_targets),
        )

    Universe.get_multiverse = staticmethod(get_multiverse)  # type: ignore[method-assign]


_memoize_multiverse()


MEMO_ENTRIES = 256
"""The Enzyme memo's modules per test process, the least recently used dropped."""

MEMO_CHECK = "TAPEFLOW_TEST_MEMO"
"""`TAPEFLOW_TEST_MEMO=check` makes every memo hit of the suite's Enzyme memo run
the pass as well and fail unless both give the same module; `=off` turns it off."""


def _memoize_enzyme() -> None:
    """`tapeflow-enzyme` once per (module, pipeline) in each test process: the same
    kernels reach the Enzyme stage from many tests (each suite's own reference
    values, the shared `differentiated` fixture, the tools run in-process, the
    simulator's `prepare`), and each run forks a process for Enzyme-MLIR and parses
    its output back. The key is everything the pass reads: its pipeline, the
    module printed with its locations (what the pass hands Enzyme and locates
    diagnostics with) and the context's dialects. A hit replaces the module's ops
    by a copy of the ops the pass left the first time. Not kept: a run that failed
    or wrote to stderr (a warning must be written every time), and a run with any
    of the pass's module functions replaced (a test standing in for Enzyme)."""
    from io import StringIO

    from xdsl.printer import Printer

    from lowering import tapeflow_enzyme
    from lowering.tapeflow_enzyme import TapeflowEnzymePass

    mode = os.environ.get(MEMO_CHECK, "on")
    if mode == "off":
        return
    original = TapeflowEnzymePass.apply
    functions = dict(vars(tapeflow_enzyme))
    memo: OrderedDict[tuple[str, str, tuple[str, ...]], ModuleOp] = OrderedDict()

    def printed(module: ModuleOp) -> str:
        text = StringIO()
        Printer(stream=text, print_debuginfo=True).print_op(module)
        return text.getvalue()

    def replace_ops(module: ModuleOp, kept: ModuleOp) -> None:
        block = module.body.block
        for old in list(block.ops):
            old.detach()
            old.erase()
        for new in list(kept.clone().body.block.ops):
            new.detach()
            block.add_op(new)

    def apply(self: TapeflowEnzymePass, ctx: Context, op: ModuleOp) -> None:
        if (
            type(self) is not TapeflowEnzymePass
            or any(vars(tapeflow_enzyme).get(k) is not v for k, v in functions.items())
            or not tapeflow_enzyme._autodiff_requests(op)  # noqa: SLF001
        ):
            return original(self, ctx, op)
        key = (self.pipeline, printed(op), tuple(sorted(ctx.registered_dialect_names)))
        kept = memo.get(key)
        if kept is not None:
            memo.move_to_end(key)
        if kept is not None and mode != "check":
            replace_ops(op, kept)
            return None
        attributes = dict(op.attributes)
        stderr, tee = sys.stderr, _Tee(sys.stderr)
        sys.stderr = tee
        try:
            original(self, ctx, op)
        finally:
            sys.stderr = stderr
        if kept is not None and printed(op) != printed(kept):
            raise AssertionError("tapeflow-enzyme gave another module than the memo's")
        if not tee.written and dict(op.attributes) == attributes:
            memo[key] = op.clone()
            if len(memo) > MEMO_ENTRIES:  # the least recently used (a campaign's kernels)
                memo.popitem(last=False)
        return None

    TapeflowEnzymePass.apply = apply  # type: ignore[method-assign]


class _Tee:
    """A text stream that passes everything on to `stream` and says if it saw any."""

    def __init__(self, stream):  # noqa: ANN001 - whatever sys.stderr is
        self.stream = stream
        self.written = False

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        return self.stream.write(text)

    def __getattr__(self, name: str):  # noqa: ANN204 - flush, fileno, encoding, ...
        return getattr(self.stream, name)


@pytest.fixture(scope="session", autouse=True)
def _enzyme_memo() -> None:
    """The Enzyme memo (`_memoize_enzyme`), set up when the first test runs."""
    _memoize_enzyme()


CPU_LOG = "TAPEFLOW_TEST_CPU_LOG"
"""`TAPEFLOW_TEST_CPU_LOG=FILE`: each test appends a line of JSON to FILE: its id,
its worker, when it started, its wall time, and the CPU seconds it took in its
process and in the child processes it waited for (Enzyme-MLIR's forks, the tools
it started). On a shared machine a test's wall time says how loaded the machine
was; its CPU time says what it costs."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201, ARG001
    log = os.environ.get(CPU_LOG)
    if not log:
        yield
        return
    import json
    import time

    start, before = time.time(), os.times()
    yield
    after = os.times()
    line = {
        "test": item.nodeid,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "master"),
        "start": start,
        "wall": time.time() - start,
        "cpu": after.user + after.system - before.user - before.system,
        "children": after.children_user
        + after.children_system
        - before.children_user
        - before.children_system,
    }
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


PROFILE = "TAPEFLOW_TEST_PROFILE"
"""`TAPEFLOW_TEST_PROFILE=DIR`: each test process (each pytest-xdist worker) runs
under Python's `cProfile` from the start of its session to its end and writes
`DIR/<worker>.prof` (`python -m pstats`): where the tests' time goes by function,
collection included; the processes the tests start are not profiled."""

_profile = None


def pytest_sessionstart(session: pytest.Session) -> None:  # noqa: ARG001
    if os.environ.get(PROFILE):
        import cProfile

        global _profile  # noqa: PLW0603 - one per process, ended at the session's end
        _profile = cProfile.Profile()
        _profile.enable()


def pytest_sessionfinish(session: pytest.Session) -> None:  # noqa: ARG001
    if _profile is not None:
        _profile.disable()
        where = os.environ[PROFILE]
        os.makedirs(where, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "master")
        _profile.dump_stats(os.path.join(where, f"{worker}.prof"))


@pytest.fixture(scope="session", autouse=True)
def _own_cache_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The tools' default caches (`tapeflow-bench`'s results under
    `$XDG_CACHE_HOME`) in this session's own folder, for the tests and the tools
    they start: parallel workers (`pytest -n auto`) and the user's cache stay apart."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache-home"))


@pytest.fixture(scope="session", autouse=True)
def _session_bytecode(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> None:
    """Where bytecode is not written (`PYTHONDONTWRITEBYTECODE`, as container images
    often set), every interpreter a test starts (the tools run as processes, the
    documentation's examples) would compile the project's modules again, some 0.2 s
    of CPU for `tapeflow-sim` and 0.3 s for `tapeflow-bench`. Those processes keep
    them in the session's temporary folder instead (Python's
    `PYTHONPYCACHEPREFIX`), shared by the workers' processes: the checkout stays
    free of `__pycache__` folders, as the setting asks, and Python checks each
    compiled module against its source as always. The test processes themselves
    are left as they are (started already, they read the installed packages'
    compiled modules from where these are)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    if worker_id == "master":  # no workers
        home = tmp_path_factory.mktemp("pycache")
    else:  # the session's folder, shared by its workers
        home = tmp_path_factory.getbasetemp().parent / "pycache"
        home.mkdir(exist_ok=True)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(home)


@cache
def _differentiated(key: str) -> ModuleOp:
    from lowering.tapeflow_enzyme import TapeflowEnzymePass
    from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
    from tapeflow_tools.context import make_context
    from tapeflow_tools.diagnostics import LocatingParser

    ctx = make_context()
    module = LocatingParser(ctx, KERNELS[key].mlir(PRESET), f"{key}.mlir").parse_module()
    TapeflowEnzymePass().apply(ctx, module)
    module.verify()
    return module


@pytest.fixture(scope="session")
def differentiated() -> Callable[[str], ModuleOp]:
    """`differentiated(key)`: a fresh copy of the kernel's Enzyme gradient module."""
    return lambda key: _differentiated(key).clone()


@cache
def _enzyme_outputs(key: str) -> dict[str, np.ndarray]:
    from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
    from tapeflow_tools.tapeflow_run import run_function

    inputs = {f"arg{i}": a for i, a in enumerate(KERNELS[key].inputs(PRESET))}
    outputs = run_function(_differentiated(key).clone(), f"{key}_grad", inputs)
    for value in outputs.values():
        value.flags.writeable = False  # shared: a test that writes to one fails there
    return outputs


@pytest.fixture(scope="session")
def enzyme_outputs() -> Callable[[str], dict[str, np.ndarray]]:
    """`enzyme_outputs(key)`: the caller's outputs on the kernel's Enzyme gradient
    and inputs (`run_caller(key, differentiated(key))`), the reference the later
    stages are held to, computed once per process for the tests that read it; its
    arrays are read-only."""
    return _enzyme_outputs


@pytest.fixture(scope="session")
def run_caller() -> Callable[[str, ModuleOp], dict[str, np.ndarray]]:
    """`run_caller(key, module)`: the caller's outputs on the kernel's inputs."""
    from tapeflow_benchmarks.kernels import ALL_KERNELS as KERNELS
    from tapeflow_tools.tapeflow_run import run_function

    def run(key: str, module: ModuleOp) -> dict[str, np.ndarray]:
        inputs = KERNELS[key].inputs(PRESET)
        return run_function(module, f"{key}_grad", {f"arg{i}": a for i, a in enumerate(inputs)})

    return run
