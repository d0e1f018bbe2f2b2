"""
Ctrl-C at any moment ends a tool with one line and exit status 130, never a
traceback: also while the tool is still importing its (heavy) modules, which is
when a user who started the wrong command tends to press it. SIGTERM (what `kill`,
a batch system or a closing session sends) and SIGHUP (a closed terminal) are
handled as Ctrl-C is, through `Terminated`, a `KeyboardInterrupt`: every place that
cleans up after Ctrl-C cleans up after them too, and the tool exits with the
conventional status 128 + the signal's number (143 for SIGTERM). Only the standard
library is imported here, so this module itself loads in an instant.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

TERMINATING = (signal.SIGTERM, signal.SIGHUP)
"""The signals handled as Ctrl-C is."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived; `signum` is which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


def handle_termination() -> None:
    """Raise `Terminated` in the main thread on SIGTERM and SIGHUP (a SIGHUP that
    is ignored, as under `nohup`, stays ignored)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in TERMINATING:
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _terminate)


def exit_status(err: KeyboardInterrupt) -> int:
    """130 after Ctrl-C, 128 + the signal's number after `Terminated`."""
    return 128 + err.signum if isinstance(err, Terminated) else 130


def stopped(err: KeyboardInterrupt) -> str:
    """What stopped the tool, for its one line: `interrupted` or `terminated
    (SIGTERM)`."""
    if isinstance(err, Terminated):
        return f"terminated ({signal.Signals(err.signum).name})"
    return "interrupted"


@contextmanager
def quiet_interrupt(tool: str) -> Iterator[None]:
    """A KeyboardInterrupt (or `Terminated`) inside the block exits quietly with
    `exit_status`."""
    handle_termination()
    try:
        yield
    except KeyboardInterrupt as err:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        print(f"\n{tool}: {stopped(err)}", file=sys.stderr)
        raise SystemExit(exit_status(err)) from None


KILL_HOOK = "TAPEFLOW_TEST_KILL"
"""An environment variable for tests: a process that reaches the point it names
(`killed_here`) kills itself with SIGKILL, as the out-of-memory killer or a
power cut would end it there."""


def killed_here(point: str) -> None:
    """SIGKILL this process if `KILL_HOOK` names `point` (tests only)."""
    if os.environ.get(KILL_HOOK) == point:
        os.kill(os.getpid(), signal.SIGKILL)


__all__ = [
    "KILL_HOOK",
    "TERMINATING",
    "Terminated",
    "exit_status",
    "handle_termination",
    "killed_here",
    "quiet_interrupt",
    "stopped",
]
