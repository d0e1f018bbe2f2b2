"""
The local worker processes of `tapeflow-bench` (the runs' pool and the figures'),
and how they end.

A worker ignores SIGINT and SIGHUP, which a terminal sends to its whole process
group: the parent alone handles them (`tapeflow_tools.interrupt`), stops its
workers (`stop_workers`) and reports once, instead of every worker printing a
traceback. SIGTERM ends a worker at once. A worker ends when its parent does,
whatever ended the parent, SIGKILL included (`end_with_parent`: Linux's
PR_SET_PDEATHSIG, elsewhere a thread watching the parent), so a killed run never
leaves processes behind. The signals are held back while a worker is forked, so
that none reaches it before it has set them up.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from lowering.enzyme.upstream_mlir import end_with_parent

_HELD = {signal.SIGINT, signal.SIGHUP, signal.SIGTERM}


def start_worker(parent: int) -> None:
    """Worker initializer: the terminal's signals are the parent's to handle;
    SIGTERM ends the worker; the worker ends with `parent`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    end_with_parent(parent)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


def local_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of `jobs` worker processes set up by `start_worker` (fork them inside
    `signals_held`)."""
    # Forked from this process (as Python 3.11 does on Linux), never through a
    # fork server, so that this process is the worker's parent.
    fork = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context(fork),
        initializer=start_worker,
        initargs=(os.getpid(),),
    )


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT, SIGHUP and SIGTERM held back while workers are forked: a child
    inherits the blocked mask, so none reaches it before its initializer has run
    (the parent receives them when the block ends)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Drop the queued work and end the running workers now."""
    pool.shutdown(wait=False, cancel_futures=True)
    for child in multiprocessing.active_children():
        child.terminate()
    for child in multiprocessing.active_children():
        child.join(timeout=5)


@contextmanager
def stopped_on_interrupt(pool: ProcessPoolExecutor) -> Iterator[ProcessPoolExecutor]:
    """`pool`, shut down when the block ends; at once (`stop_workers`) if it ends
    by Ctrl-C, a terminating signal or an error."""
    try:
        yield pool
    except BaseException:
        stop_workers(pool)
        raise
    pool.shutdown(wait=True)


__all__ = ["local_pool", "signals_held", "start_worker", "stop_workers", "stopped_on_interrupt"]
