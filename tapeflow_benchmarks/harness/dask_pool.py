"""
`tapeflow-bench --dask ADDRESS`: the groups run on a Dask distributed cluster.

`ADDRESS` is an existing scheduler (`tcp://host:8786`, as `dask scheduler` prints
it); `local` starts a small `distributed.LocalCluster` of worker processes on this
machine (one single-threaded worker per job, at most `jobs`), which is closed at
the end in order: the client, then each worker given time to exit
(`WORKER_EXIT_SECONDS`), then the scheduler; its workers leave Ctrl-C to this
process (`_terminal_signals_held`). The
cluster's `concurrent.futures` executor (`Client.get_executor`) takes
the place of the local process pool in `runner.run_points`; nothing else changes.

Each group is computed from what the point carries (a user's kernel travels as
its text and its inputs' bytes), so a worker needs the `tapeflow` package
installed in the same version, and no shared files. The numbers depend only on the
group, never on the worker that ran it: the results are those of the local pool.

Dask is an optional dependency (the `dask` extra); it is imported only here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator
from concurrent.futures import Executor
from typing import Any

from tapeflow_tools.diagnostics import ToolError

LOCAL = "local"

INSTALL = 'pip install -e ".[dask]"'
"""The install command this hint and docs/sweeps.md name (in the tapeflow checkout)."""

_NEEDS = f"--dask needs Dask's distributed scheduler: {INSTALL} (in the tapeflow checkout)"

WORKER_EXIT_SECONDS = 60.0
"""How long a local worker process may take to exit once asked, before it is
killed. Dask's own limit when the cluster closes them, 4 s, is shorter than a
worker's interpreter takes to tear down on a loaded machine: it killed idle,
healthy workers after successful runs, with a warning each."""

LOGGERS = ("distributed", "tornado")
"""The loggers of Dask's scheduler and workers and of the event loop under them."""


class OneLine(logging.Formatter):
    """A record as one line, `dask: LEVEL: message`, without its traceback: a
    warning of Dask's under load is worth a line, not a Python traceback in the
    output of a run that succeeded."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().strip().splitlines()
        return f"dask: {record.levelname.lower()}: {message[0] if message else ''}"


def _not_cancelled(record: logging.LogRecord) -> bool:
    """A task cancelled is the tool's doing (it cancels only when interrupted, and
    says so itself)."""
    return "Task cancelled" not in record.getMessage()


def _not_scheduler_lost(record: logging.LogRecord) -> bool:
    """A local worker that cannot reach its scheduler outlives this process's
    cluster, which closes it (an interrupted run) or has failed and says so."""
    return "communicate with scheduler" not in record.getMessage()


def quiet_dask_logs(local_worker: bool = False) -> None:
    """Dask's loggers print through `OneLine` only, at WARNING and above (Dask logs
    each worker's start and stop at INFO; the tool's own lines suffice), and not
    the cancelled tasks of an interrupted run, nor, in a worker of a local
    cluster, a heartbeat that found the scheduler gone."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLine())
    handler.addFilter(_not_cancelled)
    if local_worker:
        handler.addFilter(_not_scheduler_lost)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


@contextlib.contextmanager
def _terminal_signals_held() -> Iterator[None]:
    """SIGINT and SIGHUP ignored while a local cluster starts its worker processes,
    which keep that through their exec: the terminal's Ctrl-C (sent to the whole
    process group) then reaches this process alone, which closes the cluster and
    reports once, instead of every worker printing its tracebacks. Blocked
    meanwhile, so that one sent here is delivered when the block ends."""
    held = (signal.SIGINT, signal.SIGHUP)
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    handlers = {signum: signal.signal(signum, signal.SIG_IGN) for signum in held}
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def check_address(address: str) -> str:
    """`address` if it can name a scheduler (`local`, or `[tcp://]host:port`)."""
    text = address.strip()
    if text == LOCAL:
        return text
    host = text.split("://", 1)[-1]
    if not host or ":" not in host:
        raise ToolError(
            f"--dask {address}: expected 'local' or a scheduler address such as "
            "tcp://127.0.0.1:8786"
        )
    return text


@contextlib.contextmanager
def dask_executor(address: str, jobs: int) -> Iterator[tuple[Executor, int]]:
    """An executor on the cluster at `address` (or a new local one) and the number
    of groups to keep in flight; the client (and a local cluster) are closed when
    the block ends."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ToolError(_NEEDS) from None
    quiet_dask_logs()
    cluster = None
    try:
        if address == LOCAL:
            with _terminal_signals_held():
                cluster = LocalCluster(
                    n_workers=max(1, jobs),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # The scheduler serves HTTP even without a dashboard, by default
                    # on port 8787; a port of the system's choosing never collides
                    # with another cluster (Dask would print a warning).
                    scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
                )
                client = Client(cluster)
            client.run(quiet_dask_logs, True)  # the workers are processes of their own
        else:
            try:
                client = Client(address, timeout="10s")
            except (OSError, TimeoutError) as err:
                raise ToolError(f"--dask {address}: cannot reach the scheduler: {err}") from None
        done = False
        try:
            threads = sum(client.nthreads().values()) or 1
            # A remote cluster gets a second group per thread queued, so that no
            # worker waits for the next submission.
            yield client.get_executor(pure=False), threads if cluster else 2 * threads
            done = True
        except KeyboardInterrupt:
            # The tasks cancelled by the close are the interrupt's doing: one line
            # (the tool's) says so, not Dask's warnings.
            for name in LOGGERS:
                logging.getLogger(name).setLevel(logging.CRITICAL)
            raise
        finally:
            client.close()
        if cluster is not None and done:
            _close_workers(cluster)  # idle now: each may take its time to exit
    finally:
        if cluster is not None:
            cluster.close()


def _close_workers(cluster: Any) -> None:
    """Close a local cluster's workers (their nannies), each given
    `WORKER_EXIT_SECONDS` to exit, before the cluster closes the scheduler."""

    async def close_all() -> None:
        # A nanny waits 80% of its timeout for its worker process to exit.
        await asyncio.gather(
            *(nanny.close(timeout=WORKER_EXIT_SECONDS / 0.8) for nanny in cluster.workers.values())
        )

    cluster.sync(close_all)


__all__ = [
    "INSTALL",
    "LOCAL",
    "LOGGERS",
    "WORKER_EXIT_SECONDS",
    "OneLine",
    "check_address",
    "dask_executor",
    "quiet_dask_logs",
]
