"""
The real MLIR, as the PyPI package `enzyme-ad` ships it (with Enzyme's passes).

Two uses: `tapeflow-enzyme` runs Enzyme's pass pipeline on the module, and the
tools' front end (`tapeflow_tools.frontend`) hands MLIR the user's text when
xDSL's parser cannot read it (custom forms xDSL 0.74 lacks, such as
`scf.if %c -> f64` without parentheses), so that anything MLIR reads is read.

MLIR keeps every op's location through its passes and prints them as `loc(#locN)`
references to aliases defined around the module, which xDSL does not read.
`resolve_locations` puts each location in place instead, reduced to the form the
TapeFlow diagnostics use (a `file:line:col`), and maps positions in the text MLIR
was given (file `-`) back to the user's file. Importing Enzyme maps a ~0.5 GB
library, so it happens only when a pipeline runs, and only its native module is
loaded (`native_enzyme`), not the `enzyme_ad.jax` package around it, whose
`__init__` imports JAX: about 2 s of start-up no pass uses.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import pickle
import re
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

from xdsl.utils.exceptions import PassFailedException

Position = tuple[str, int, int]
"""A file, line and column."""

Locator = Callable[[int, int], Position | None]
"""Maps a line and column of the text handed to MLIR to the user's position."""


def no_locator(line: int, col: int) -> Position | None:
    return None


class MlirUnavailable(PassFailedException):
    """enzyme-ad (and with it MLIR) cannot be imported here."""


class MlirRejected(PassFailedException):
    """MLIR refused the text or a pass failed; the message holds its diagnostics."""


class MlirCrashed(MlirRejected):
    """The native code died on the text (a trap, an assertion) in a child process."""


_NATIVE = "enzyme_ad.jax.enzyme_call"


def native_enzyme() -> ModuleType:
    """enzyme-ad's native module (`enzyme_ad.jax.enzyme_call`, which runs MLIR pass
    pipelines), loaded by itself from the installed package's folder; where it is
    not found there, imported the usual way (with JAX). `ImportError` as importing
    it raises."""
    if _NATIVE in sys.modules:
        return sys.modules[_NATIVE]
    package = importlib.util.find_spec("enzyme_ad")
    folders = (package.submodule_search_locations or []) if package is not None else []
    for folder in folders:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "jax", f"enzyme_call{suffix}")
            spec = importlib.util.spec_from_file_location(_NATIVE, path)
            if spec is None or spec.loader is None or not os.path.isfile(path):
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules[_NATIVE] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[_NATIVE]
                raise
            return module
    from enzyme_ad.jax import enzyme_call

    return enzyme_call


def run_pipeline(text: str, pipeline: str, locate: Locator = no_locator, what: str = "MLIR") -> str:
    """Run `pipeline` on the module `text` and return MLIR's printed result (with
    its location aliases). MLIR's diagnostics are re-anchored with `locate`; they
    become the message of `MlirRejected` on failure and go to stderr otherwise."""
    try:
        enzyme_call = native_enzyme()
    except ImportError as err:
        if "failed to map segment" in str(err) or "Cannot allocate memory" in str(err):
            # Its native library is there, but the memory to load it is not.
            raise MemoryError(f"loading enzyme-ad's native library: {err}") from None
        raise MlirUnavailable(
            "this needs MLIR and Enzyme-MLIR from the PyPI package 'enzyme-ad' "
            f"(pip install 'tapeflow[enzyme]'), which could not be imported: {err}"
        ) from None
    failure: ValueError | None = None
    crash: str | None = None
    with _captured_stderr() as captured:
        # No function names: Enzyme then keeps every symbol's name.
        result, failure, crash = _isolated(
            lambda: enzyme_call.run_pass_pipeline([], text, pipeline)[1]
        )
    diagnostics = relocate_diagnostics("".join(captured), locate)
    if crash is not None:
        said = f"; it said:\n{diagnostics}" if diagnostics else " without a diagnostic"
        raise MlirCrashed(
            f"{what} crashed ({crash}) on the module, pipeline '{pipeline}'{said}\n"
            f"(a bug of {what}, not of the input as MLIR reads it: rewrite the construct "
            "at fault, or report it upstream)"
        )
    if failure is not None:
        if diagnostics:
            raise MlirRejected(
                f"{diagnostics}\n({what} rejected the module, pipeline '{pipeline}')"
            )
        raise MlirRejected(
            f"{what} rejected the module (pipeline '{pipeline}'): "
            f"{resolve_locations(str(failure), locate).strip()}"
        )
    if diagnostics:
        print(diagnostics, file=sys.stderr)
    return result


def end_with_parent(parent: int) -> None:
    """In a child process of `parent`: end when `parent` does, whatever ends it
    (SIGKILL too). Linux's PR_SET_PDEATHSIG; where it is missing, `watch_parent`.
    A parent already gone ends the child at once."""
    death_signal = False
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            death_signal = libc.prctl(1, signal.SIGKILL) == 0  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the call took effect
        os._exit(70)
    if not death_signal:
        watch_parent(parent)


def watch_parent(parent: int) -> None:
    """A thread that ends this process (SIGKILL) once `parent` is no longer its
    parent, checked every half second."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


def _die_with_parent(parent: int) -> None:
    """In the forked child: end with the process that forked it (a tool's or a
    bench worker's), and with the terminal's Ctrl-C even where the parent ignores
    it (bench workers leave Ctrl-C to their parent, which then stops them): an
    interrupted run leaves no Enzyme child behind. SIGTERM and SIGHUP end it at
    once (the tool's own handlers, inherited, are for the tool)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    end_with_parent(parent)


def _isolated(run: Callable[[], str]) -> tuple[str, ValueError | None, str | None]:
    """`run()` in a forked child process, so that a crash of the native code (an
    assertion, a trap: Enzyme-MLIR 0.0.16 traps on memref-typed loop-carried
    values, for one) ends the child, not the tool: (its result, the ValueError it
    raised, None) or ("", None, how the child died). Where there is no fork, in
    this process."""
    if not hasattr(os, "fork"):
        try:
            return run(), None, None
        except ValueError as err:
            return "", err, None
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: run, send the outcome, leave without Python's exit
        code = 0
        try:
            _die_with_parent(parent)
            os.close(read_end)
            try:
                outcome: tuple[str, str | None] = (run(), None)
            except ValueError as err:
                outcome = ("", str(err))
            payload = pickle.dumps(outcome)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        except BaseException:  # noqa: BLE001 - nothing may escape into the parent's code
            code = 70
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return "", None, f"killed by {name}"
    if os.WEXITSTATUS(status) != 0 or not payload:
        return "", None, f"exit status {os.WEXITSTATUS(status)}"
    result, message = pickle.loads(payload)
    return result, (ValueError(message) if message is not None else None), None


@contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """Collect what native code writes to file descriptor 2 meanwhile."""
    captured: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.append(sink.read().decode(errors="replace"))


# ------------------------------------------------------------------ locations
_ALIAS_DEFINITION = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$")
_ALIAS_USE = re.compile(r"#loc\d*\b")
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_DIAGNOSTIC = re.compile(r"^loc\((.*)\): (error|warning|note|remark): (.*)$")


def _position(inner: str, locate: Locator) -> Position | None:
    """The first `"file":line:col` of a location's text, with MLIR's input (`-`)
    mapped to the user's file."""
    for match in _FILE_LINE_COL.finditer(inner):
        file, line, col = match[1], int(match[2]), int(match[3])
        if file == "-":
            mapped = locate(line, col) if line > 0 else None
            if mapped is not None:
                return mapped
            continue
        return file, line, col
    return None


def _spans(text: str, start: int) -> int:
    """The index just past the `)` that closes the `(` at `start - 1`, skipping
    string literals."""
    depth, i, n = 1, start, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def resolve_locations(text: str, locate: Locator = no_locator) -> str:
    """
    MLIR's printed text with every `loc(...)` (inline or through an alias) replaced
    by `loc("file":line:col)` or `loc(unknown)`, and the alias definitions removed.
    String literals are left as they are.
    """
    aliases: dict[str, str] = {}
    kept: list[str] = []
    for line in text.splitlines():
        match = _ALIAS_DEFINITION.match(line.strip())
        if match:
            aliases[match[1]] = match[2]
        else:
            kept.append(line)
    body = "\n".join(kept)

    def expand(inner: str, depth: int = 0) -> str:
        if depth > 32:  # aliases that refer to each other in a cycle
            return inner
        return _ALIAS_USE.sub(lambda m: expand(aliases.get(m[0], "unknown"), depth + 1), inner)

    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch == '"':
            j = i + 1
            while j < n and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            out.append(body[i : j + 1])
            i = j + 1
        elif body.startswith("loc(", i) and (
            i == 0 or not (body[i - 1].isalnum() or body[i - 1] == "_")
        ):
            end = _spans(body, i + 4)
            where = _position(expand(body[i + 4 : end - 1]), locate)
            if where is None:
                out.append("loc(unknown)")
            else:
                file = where[0].replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'loc("{file}":{where[1]}:{where[2]})')
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out).rstrip("\n") + "\n"


def relocate_diagnostics(stderr_text: str, locate: Locator) -> str:
    """MLIR's diagnostics as `file:line:col: error: message`, in the user's file."""
    lines = []
    for line in stderr_text.splitlines():
        match = _DIAGNOSTIC.match(line.strip())
        if match:
            where = _position(match[1], locate)
            prefix = f"{where[0]}:{where[1]}:{where[2]}" if where else "<MLIR input>"
            line = f"{prefix}: {match[2]}: {match[3]}"
        if line.strip():
            lines.append(line)
    return "\n".join(lines)
