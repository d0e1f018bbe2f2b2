"""
Ctrl-C at any moment ends a tool with one line and exit status 130, never a
traceback: also while the tool is still importing its (heavy) modules, which is
when a user who started the wrong command tends to press it. Only the standard
library is imported here, so this module itself loads in an instant.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_interrupt(tool: str) -> Iterator[None]:
    """A KeyboardInterrupt inside the block exits with status 130 quietly."""
    try:
        yield
    except KeyboardInterrupt:
        sys.stdout.flush()
        print(f"\n{tool}: interrupted", file=sys.stderr)
        raise SystemExit(130) from None


__all__ = ["quiet_interrupt"]
