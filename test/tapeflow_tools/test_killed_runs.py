"""
Runs killed at any instant lose nothing: real processes, real signals. The results
folder's swap killed (SIGKILL through `interrupt.KILL_HOOK`) at each of its steps
leaves the folder complete, old or new, with the user's files, and the next run
finishes or undoes it and says so; the temporary folders and cache entries of dead
runs are removed, a live run's never; `tapeflow-bench`'s workers end with their
parent whatever the signal; SIGTERM is Ctrl-C's twin; a worker lost (SIGKILL) is
retried once, then its point fails naming the cause.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tapeflow_tools.atomic import FOLDER_MARKER, atomic_directory, recover_outputs, written_files
from tapeflow_tools.interrupt import KILL_HOOK

ROOT = Path(__file__).resolve().parents[2]

WRITE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tapeflow_tools import atomic
    if sys.argv[2] == "renames":
        atomic._exchange = lambda a, b: False  # a file system without the exchange
    with atomic.atomic_directory(sys.argv[1]) as temp:
        (temp / "report.md").write_text("new report\\n")
        (temp / "csv").mkdir()
        (temp / "csv" / "runs.csv").write_text("new,runs\\n")
    """
)


def _write(target: Path, kill: str | None, how: str = "exchange") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if kill is not None:
        env[KILL_HOOK] = kill
    return subprocess.run(
        [sys.executable, "-c", WRITE, str(target), how],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _old_results(target: Path) -> None:
    with atomic_directory(target, notice=lambda _: None) as temp:
        (temp / "report.md").write_text("old report\n")
        (temp / "csv").mkdir()
        (temp / "csv" / "old.csv").write_text("old\n")
    (target / "notes.txt").write_text("my notes\n")
    (target / "csv" / "mine.csv").write_text("my table\n")


def _state(target: Path) -> str:
    """'old' or 'new': which complete folder `target` is, the user's files in it
    and every file its marker lists as written (checked by their checksums)."""
    assert (target / "notes.txt").read_text() == "my notes\n"
    assert (target / "csv" / "mine.csv").read_text() == "my table\n"
    written = written_files(target)
    assert written is not None
    for name, digest in written.items():
        assert hashlib.sha256((target / name).read_bytes()).hexdigest() == digest, name
    names = set(written)
    if names == {"report.md", "csv/old.csv"}:
        return "old"
    assert names == {"report.md", "csv/runs.csv"}, names
    return "new"


@pytest.mark.parametrize(
    "kill, how, state, said",
    [
        ("swap:journal", "exchange", "old", "they are as before"),
        ("swap:exchanged", "exchange", "new", "finished putting in place"),
        ("swap:done", "exchange", "new", "finished putting in place"),
        ("swap:between", "renames", None, "finished putting in place"),
        ("swap:done", "renames", "new", "finished putting in place"),
    ],
)
def test_a_swap_killed_at_each_step(
    tmp_path: Path, kill: str, how: str, state: str | None, said: str
) -> None:
    """SIGKILL at each step of the swap: `--out` is at that instant the complete
    old folder or the complete new one, with the user's files (only the two-rename
    fallback, for file systems without an exchange, has it missing for an
    instant); the next run finishes or rolls back and says which, leaving
    nothing beside the folder."""
    target = tmp_path / "results"
    _old_results(target)
    killed = _write(target, kill, how)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    if state is None:
        assert not target.exists()
    else:
        assert _state(target) == state
    notes: list[str] = []
    with atomic_directory(target, notice=notes.append) as temp:
        (temp / "report.md").write_text("third report\n")
    assert any(said in note for note in notes), notes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    assert (target / "report.md").read_text() == "third report\n"
    assert (target / "notes.txt").read_text() == "my notes\n"
    assert (target / "csv" / "mine.csv").read_text() == "my table\n"
    assert not (target / "csv" / "old.csv").exists()
    assert not (target / "csv" / "runs.csv").exists()


def test_a_build_killed_is_cleaned_up_only_once_its_run_is_dead(tmp_path: Path) -> None:
    """A run killed while it fills its temporary folder leaves it; a run still
    filling its own is not touched by another's cleanup."""
    target = tmp_path / "results"
    _old_results(target)
    live = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys, time
                from tapeflow_tools.atomic import atomic_directory
                with atomic_directory(sys.argv[1]) as temp:
                    (temp / "report.md").write_text("half")
                    print(temp, flush=True)
                    time.sleep(60)
                """
            ),
            str(target),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        building = Path(live.stdout.readline().strip())  # type: ignore[union-attr]
        with atomic_directory(target, notice=lambda _: None) as temp:
            (temp / "report.md").write_text("second\n")
        assert (building / "report.md").read_text() == "half"  # a live run's: kept
    finally:
        live.kill()
        live.wait()
    assert building.exists()  # SIGKILL: nothing cleaned up after it
    with atomic_directory(target, notice=lambda _: None) as temp:
        (temp / "report.md").write_text("third\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    assert (target / "notes.txt").read_text() == "my notes\n"


def test_an_older_versions_folder_aside_is_restored_and_said(tmp_path: Path) -> None:
    """A folder an earlier version of the tool set aside (`.results.X.old`) and
    never put back: restored when `--out` is missing; when `--out` is there, the
    user's files only it holds are moved into `--out`, and the run says so."""
    target = tmp_path / "results"
    _old_results(target)
    aside = tmp_path / ".results.abc.old"
    target.rename(aside)
    notes: list[str] = []
    with atomic_directory(target, notice=notes.append) as temp:
        (temp / "report.md").write_text("new\n")
    assert any("restored the earlier results" in n for n in notes), notes
    assert (target / "notes.txt").read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    assert json.loads((target / FOLDER_MARKER).read_text())["files"].keys() == {"report.md"}


def test_two_writers_at_once_keep_the_users_files(tmp_path: Path) -> None:
    """Two runs writing one folder at the same moment: each swap is whole, the
    last one's results stay, the user's files survive, nothing is left beside."""
    target = tmp_path / "results"
    _old_results(target)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITE, str(target), "exchange"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    errors = [run.communicate(timeout=60)[1] for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], errors
    assert _state(target) == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    assert not any("left" in e or "as before" in e for e in errors), errors


# nn, whose points the lost-worker test has killed, logsum, whose points it finds
# cached, and pathfinder, whose runs keep the workers busy well after the first group
# finished (the sign the test waits for), so that runs are left when the signal comes
# on a fast machine too: six jobs, the longest (pathfinder's) started first, two in
# flight, so that when the first job ends one is running and four wait. Under one
# timing model: a job's runs are cached together when the job ends (`run_points`),
# so a second model would add runs to each job, not states a kill can leave.
BENCH = [
    sys.executable,
    "-m",
    "tapeflow_benchmarks.tapeflow_bench",
    "--quick",
    "--only",
    "performance",
    "--kernels",
    "logsum,nn,pathfinder",
    "--model",
    "cgra",
    "--no-progress",
    "--jobs",
    "2",
]


def _bench(tmp_path: Path, kill: str | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if kill is not None:
        env[KILL_HOOK] = kill
    # Started as from a terminal: under `nohup` the suite's ignored SIGHUP would pass
    # to the run, which keeps an ignored SIGHUP ignored (`handle_termination`).
    hangup = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        return subprocess.Popen(
            [*BENCH, "--out", str(tmp_path / "results"), "--cache-dir", str(tmp_path / "cache")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    finally:
        signal.signal(signal.SIGHUP, hangup)


def _group_alive(pgid: int) -> list[str]:
    """Processes of the group that still run (a zombie runs nothing)."""
    group = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True)
    states = {
        pid: subprocess.run(
            ["ps", "-o", "stat=", "-p", pid], capture_output=True, text=True
        ).stdout.strip()
        for pid in group.stdout.split()
    }
    return [pid for pid, state in states.items() if state and not state.startswith("Z")]


def _workers_busy(run: subprocess.Popen, tmp_path: Path) -> None:
    deadline = time.monotonic() + 120
    while not (tmp_path / "cache").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # the first group finished: the workers are busy


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The results folder of the same command run once, without a cache: the
    reference the killed runs are held to, its entry point called in this process
    (the tests here start the command itself where the process is what they test).
    Under `pytest -n` the workers share it: the first to take the lock makes it."""
    from tapeflow_benchmarks import tapeflow_bench

    if worker_id == "master":  # no workers
        where = tmp_path_factory.mktemp("clean")
    else:  # the session's folder, shared by its workers
        where = tmp_path_factory.getbasetemp().parent / "killed-runs-clean"
        where.mkdir(exist_ok=True)
    with (where / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (where / "done").exists():
            argv = [*BENCH[3:], "--out", str(where / "results"), "--no-cache"]
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                code = tapeflow_bench.main(argv)
            assert code == 0, stderr.getvalue()
            (where / "done").touch()
    return where / "results"


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_workers_end_with_their_parent(tmp_path: Path, clean_run: Path, signum: int) -> None:
    """SIGKILL, SIGTERM or SIGHUP to the parent alone, mid-run: no worker
    survives it; SIGTERM and SIGHUP get one line and status 128 + N, as Ctrl-C
    gets 130, and no traceback. The same command then finishes from the cache,
    leaves no temporary file there, and its tables are a clean run's, byte for
    byte."""
    run = _bench(tmp_path)
    _workers_busy(run, tmp_path)
    os.kill(run.pid, signum)
    _, err = run.communicate(timeout=60)
    assert run.returncode == (-signum if signum == signal.SIGKILL else 128 + signum), err
    if signum != signal.SIGKILL:
        name = signal.Signals(signum).name
        assert err.strip().startswith(f"tapeflow-bench: terminated ({name})"), err
        assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while _group_alive(run.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group_alive(run.pid) == [], "workers outlived their parent"
    assert not (tmp_path / "results").exists()
    again = _bench(tmp_path)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    for table in ("runs.csv", "performance.csv"):
        resumed = (tmp_path / "results" / "csv" / table).read_bytes()
        assert resumed == (clean_run / "csv" / table).read_bytes(), table
    assert not list((tmp_path / "cache").glob("*/.*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "results"]


def test_half_written_cache_entries_are_removed_when_no_run_is_live(tmp_path: Path) -> None:
    """A cache entry's temporary file a killed run left is deleted by the next run
    that finds no other run using the cache, never while one is (its temporary
    files could be in flight); a file of another name is never touched."""
    cache = tmp_path / "cache"
    (cache / "ab").mkdir(parents=True)
    leftover = cache / "ab" / ".ab12.json.k3y9x0.tmp"
    mine = cache / "ab" / "notes.tmp"
    mine.write_text("mine")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from tapeflow_benchmarks.harness.result_cache import ResultCache; "
            "ResultCache(Path(sys.argv[1])); print('live', flush=True); time.sleep(60)",
            str(cache),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "live"  # type: ignore[union-attr]
        leftover.write_text('{"half": ')  # as a run killed while writing it leaves it
        check = [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; "
            "from tapeflow_benchmarks.harness.result_cache import ResultCache; "
            "ResultCache(Path(sys.argv[1]))",
            str(cache),
        ]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        subprocess.run(check, env=env, check=True, timeout=60)
        assert leftover.exists()  # another run is live: kept
    finally:
        holder.kill()
        holder.wait()
    subprocess.run(check, env=env, check=True, timeout=60)
    assert not leftover.exists()
    assert mine.read_text() == "mine"


def test_a_worker_lost_twice_fails_its_point_only(tmp_path: Path) -> None:
    """A worker SIGKILLed whenever it runs nn (as the out-of-memory killer would):
    retried once, then nn's points fail naming the cause; the other kernels'
    runs are cached, and the same command without the killer finishes from there."""
    run = _bench(tmp_path, kill="worker:nn")
    out, err = run.communicate(timeout=300)
    assert run.returncode == 1, err
    assert "Traceback" not in err
    assert "a worker process was lost (killed from outside); the runs in flight then (" in err
    assert "nn/small" in err.split("in flight then (")[1].split(")")[0]
    failed = [line for line in err.splitlines() if line.startswith("tapeflow-bench: failed:")]
    assert failed and all(line.startswith("tapeflow-bench: failed: nn/small") for line in failed)
    assert all("out-of-memory killer" in line for line in failed)
    again = _bench(tmp_path)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    computed = json.loads((tmp_path / "results" / "results.json").read_text())["meta"]
    assert computed["failed"] == [] and 0 < computed["cached"] < computed["points"]


def _logsum_inputs(tmp_path: Path) -> list[str]:
    """`--inputs` for the small logsum gradient (without them tapeflow-sim warns)."""
    np.savez(tmp_path / "logsum.npz", arg0=np.linspace(0.1, 1.6, 16))
    return ["--inputs", str(tmp_path / "logsum.npz")]


def _sim_logsum(variant: str, preset: str) -> list[str]:
    """`tapeflow-sim` on the small logsum gradient, in a process of its own."""
    return [
        sys.executable,
        "-m",
        "tapeflow_tools.tapeflow_sim",
        str(ROOT / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"),
        "--function",
        "logsum_grad",
        "--variant",
        variant,
        "--preset",
        preset,
    ]


def _sim_outputs(tmp_path: Path, run: str) -> list[str]:
    """`tapeflow-sim` on the small logsum gradient writing its three outputs `run.*`."""
    return [
        *_sim_logsum("tapeflow", "Tflow32k"),
        "--inputs",
        str(tmp_path / "in.npz"),
        "--out",
        str(tmp_path / f"{run}.npz"),
        "--json",
        str(tmp_path / f"{run}.json"),
        "--timeline",
        str(tmp_path / f"{run}.trace.json"),
    ]


def _sim_clean(tmp_path: Path, run: str) -> None:
    """The same command's entry point in this process: the reference outputs the
    killed run's are held to (the process is what the test kills, not this one)."""
    from tapeflow_tools import tapeflow_sim

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        tapeflow_sim.main(_sim_outputs(tmp_path, run)[3:])


def _sim(tmp_path: Path, run: str, kill: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if kill is not None:
        env[KILL_HOOK] = kill
    return subprocess.run(
        _sim_outputs(tmp_path, run),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_sim_killed_between_its_outputs_renames(tmp_path: Path) -> None:
    """SIGKILL after the first of `tapeflow-sim`'s three outputs is renamed into
    place: a journal marks the mix, and the next run writing beside them
    completes it, so that all three are the killed run's (its .npz is a clean
    run's, byte for byte; none of the older files is left)."""
    np.savez(tmp_path / "in.npz", arg0=np.linspace(0.1, 1.6, 16))
    _sim_clean(tmp_path, "clean")
    names = ("out.npz", "out.json", "out.trace.json")
    for name in names:
        (tmp_path / name).write_bytes(b"older")
    killed = _sim(tmp_path, "out", kill="commit:renamed")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert sorted(n for n in names if (tmp_path / n).read_bytes() == b"older") == [
        "out.json",
        "out.trace.json",
    ]
    assert (tmp_path / ".out.npz.commit.json").exists()
    notes: list[str] = []
    recover_outputs([tmp_path / n for n in names], notes.append)
    assert len(notes) == 1 and "completed the outputs of a run killed" in notes[0]
    assert (tmp_path / "out.npz").read_bytes() == (tmp_path / "clean.npz").read_bytes()
    report = json.loads((tmp_path / "out.json").read_text())
    clean = json.loads((tmp_path / "clean.json").read_text())
    assert report["cycles"] == clean["cycles"]
    trace = json.loads((tmp_path / "out.trace.json").read_text())
    assert (
        trace["otherData"] == json.loads((tmp_path / "clean.trace.json").read_text())["otherData"]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["in.npz", *names, "clean.npz", "clean.json", "clean.trace.json"]
    )


def test_a_standard_output_that_cannot_be_written(tmp_path: Path) -> None:
    """`> /dev/full`: the message says so, not Python's own error."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*_sim_logsum("enzyme", "Enzyme32k"), *_logsum_inputs(tmp_path)],
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "tapeflow-sim: error: the standard output cannot be written: No space left on device"
    )


def test_ctrl_c_under_a_local_dask_cluster_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C to the whole process group (as a terminal sends it) while a local
    Dask cluster runs the groups: the tool's one line, status 130, none of the
    workers' tracebacks or Dask's warnings, no worker left running."""
    pytest.importorskip("distributed")
    run = subprocess.Popen(
        [
            *BENCH,
            "--dask",
            "local",
            "--out",
            str(tmp_path / "results"),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    _workers_busy(run, tmp_path)
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert err.strip() == (
        "tapeflow-bench: interrupted; the runs that finished are cached, and the same "
        "command continues from there"
    )
    deadline = time.monotonic() + 10
    while _group_alive(run.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group_alive(run.pid) == []


ADDRESS_SPACE = 320 * 2**20
"""An address-space limit between what the imports need and what loading Enzyme's
native library needs. Measured with `tapeflow-sim` on the small logsum gradient:
the imports (Python, numpy with OpenBLAS, xDSL) fail below 150-200 MiB, the whole
run fits from about 525 MiB; 320 MiB keeps a wide margin on either side (a limit of
500 MiB, too near the run's need, let it fit now and then on a loaded machine)."""


def test_memory_running_out_is_said_with_phase_and_peak(tmp_path: Path) -> None:
    """Under an address-space limit too small to load Enzyme's native library:
    the message says memory ran out, in which phase, and the peak; it does not
    blame a missing install."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    done = subprocess.run(
        [
            *_sim_logsum("tapeflow", "Tflow32k"),
            *_logsum_inputs(tmp_path),
            "--json",
            str(tmp_path / "r.json"),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("tapeflow-sim: error: out of memory while lowering the gradient")
    assert "peaked at" in done.stderr and "MiB" in done.stderr
    assert "Traceback" not in done.stderr and "pip install" not in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_a_point_out_of_memory_names_itself_and_the_phase(tmp_path: Path) -> None:
    """`tapeflow-bench` under the same limit: each point fails naming itself, the
    phase and the peak; the run exits 1, nothing of the failed points cached."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tapeflow_benchmarks.tapeflow_bench",
            "--quick",
            "--only",
            "table2",
            "--kernels",
            "logsum",
            "--model",
            "cgra",
            "--no-progress",
            "--jobs",
            "1",
            "--out",
            str(tmp_path / "results"),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited,
    )
    assert done.returncode == 1, done.stderr
    failed = [line for line in done.stderr.splitlines() if "failed:" in line]
    assert len(failed) == 2, done.stderr
    for line in failed:
        assert line.startswith("tapeflow-bench: failed: logsum/small ")
        assert ": out of memory while lowering it" in line and "peaked at" in line
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_a_child_watching_its_parent_ends_with_it() -> None:
    """Where PR_SET_PDEATHSIG is missing, a thread watches the parent: a child
    that runs only the watch (no death signal) ends within a second of its
    parent's SIGKILL."""
    script = textwrap.dedent(
        """
        import os, sys, time
        from lowering.enzyme.upstream_mlir import watch_parent
        parent = os.getpid()
        child = os.fork()
        if child == 0:
            watch_parent(parent)
            time.sleep(60)
            os._exit(0)
        print(child, flush=True)
        time.sleep(60)
        """
    )
    run = subprocess.Popen(
        [sys.executable, "-c", script],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    child = int(run.stdout.readline())  # type: ignore[union-attr]
    assert _group_state(child) not in ("", "Z")
    run.kill()
    run.wait()
    deadline = time.monotonic() + 3
    while _group_state(child) not in ("", "Z") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group_state(child) in ("", "Z"), "the child outlived its parent"


def _group_state(pid: int) -> str:
    """`ps`'s first state letter of `pid` ('' once it is gone)."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    return state.stdout.strip()[:1]
