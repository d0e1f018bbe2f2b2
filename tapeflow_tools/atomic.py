"""
Writing outputs so that a failed or interrupted run never destroys or half-writes
them.

Every file a TapeFlow tool writes goes to a temporary file in the same directory
first and is renamed over the target only once it is complete (`os.replace` is
atomic within a file system): a reader sees the old file or the new one, never an
empty or partial one, and a run that fails leaves the old file as it was. A
results folder is written the same way, as a temporary sibling folder renamed into
place (`atomic_directory`).

The `check_*` functions let a tool refuse an output location before it computes
anything: a directory named as an output file, a missing or read-only parent, a
regular file named as a folder, an output that names one of the run's inputs or
another output (`check_distinct`).

A run with several output files (`tapeflow-sim --out --json --timeline`) commits
them together (`commit_outputs`): all are written to temporary files first, and
only when every one is complete are they renamed into place, so one that fails
(a full disk) leaves none of the run's outputs behind and every older file as it
was. Each error names the option and the path.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from tapeflow_tools.diagnostics import ToolError


def _resolved(path: str | os.PathLike[str]) -> Path:
    """The file a write to `path` lands in (a symlink is followed, not replaced)."""
    return Path(os.path.realpath(path))


def _is_special(path: Path) -> bool:
    """A device, FIFO or socket (`/dev/null`, `/dev/stdout`): written in place,
    since renaming over it would replace the node itself."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _new_file_mode(target: Path) -> int:
    """The existing file's permissions, or what `open()` would give a new file."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def check_output_file(path: str | os.PathLike[str], option: str) -> None:
    """Refuse an output file location before anything is computed: the message
    names the option (`--out`, `-o`, ...) and the path."""
    target = _resolved(path)
    where = f"{option} {os.fspath(path)}"
    if target.is_dir():
        raise ToolError(f"{where}: is a directory; name a file to write")
    if _is_special(target):
        return
    parent = target.parent
    if not parent.is_dir():
        raise ToolError(f"{where}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ToolError(f"{where}: the directory {parent} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise ToolError(f"{where}: the file is not writable")


def check_output_directory(path: str | os.PathLike[str], option: str) -> None:
    """Refuse a folder location that is a file, cannot be created or is not
    writable, before anything is computed."""
    target = Path(os.path.abspath(path))
    where = f"{option} {os.fspath(path)}"
    if target.exists() and not target.is_dir():
        raise ToolError(f"{where}: is a file, not a directory")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ToolError(f"{where}: cannot be created, {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ToolError(f"{where}: {existing} is not writable")


Named = tuple[str, "str | os.PathLike[str] | None"]
"""(option, path) of a command line's file: `("--json", "r.json")`; None: not given."""


def _same_file(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


def check_distinct(outputs: Sequence[Named], inputs: Sequence[Named] = ()) -> None:
    """Refuse, before anything runs, an output that names one of the run's inputs
    (writing it would destroy the input) or the same file as another output (one
    would overwrite the other). Devices (`/dev/null`) may be named by several."""
    given = [(o, p, _resolved(p)) for o, p in outputs if p is not None]
    for n, (option, path, target) in enumerate(given):
        if _is_special(target):
            continue
        for source, source_path in inputs:
            if source_path is not None and _same_file(target, _resolved(source_path)):
                raise ToolError(
                    f"{option} {os.fspath(path)}: names an input ({source} "
                    f"{os.fspath(source_path)}); writing it would destroy the input: name "
                    "another file"
                )
        for other, _, other_target in given[n + 1:]:
            if _same_file(target, other_target):
                raise ToolError(f"{option} and {other} both name {os.fspath(path)}")


def commit_outputs(outputs: Sequence[tuple[str, str | os.PathLike[str], bytes]]) -> None:
    """Write every (option, path, contents) of one run, or none of them.

    Each regular file is written to a temporary file beside it; then each device
    (`/dev/null`, `/dev/full`) is written in place; only when all succeeded are the
    temporary files renamed over their targets (with Ctrl-C deferred), an older
    file kept as a hard link until every rename is done, so that a failure
    restores it. An error names the option and the path and says that nothing was
    kept."""
    staged: list[tuple[str, str, Path, Path]] = []  # option, path, temp, target
    try:
        for option, path, data in outputs:
            target = _resolved(path)
            if _is_special(target):
                continue
            try:
                staged.append((option, os.fspath(path), _staged(target, data), target))
            except OSError as err:
                raise _write_error(option, path, err) from None
        for option, path, data in outputs:
            target = _resolved(path)
            if _is_special(target):
                try:
                    with open(target, "wb") as out:
                        out.write(data)
                except OSError as err:
                    raise _write_error(option, path, err) from None
        with _signals_deferred():
            _rename_all(staged)
    finally:
        for _, _, temp, _ in staged:
            temp.unlink(missing_ok=True)


def _staged(target: Path, data: bytes) -> Path:
    file_mode = _new_file_mode(target)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, file_mode)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


def _rename_all(staged: list[tuple[str, str, Path, Path]]) -> None:
    """Rename each temporary file over its target; if one rename fails, undo the
    ones before it (older files come back from their hard-linked copies)."""
    kept: list[tuple[Path, Path | None, bool]] = []  # target, older file's copy, existed
    try:
        for option, path, temp, target in staged:
            backup: Path | None = None
            existed = target.exists()
            if existed:
                backup = target.with_name(f".{target.name}.{os.getpid()}.old")
                try:
                    os.link(target, backup)
                except OSError:
                    backup = None  # no hard links here: the older file cannot come back
            try:
                os.replace(temp, target)
            except OSError as err:
                if backup is not None:
                    backup.unlink(missing_ok=True)
                raise _write_error(option, path, err) from None
            kept.append((target, backup, existed))
    except BaseException:
        for target, backup, existed in reversed(kept):
            if backup is not None:
                os.replace(backup, target)
            elif not existed:
                target.unlink(missing_ok=True)
        raise
    for _, backup, _ in kept:
        if backup is not None:
            backup.unlink(missing_ok=True)


def _write_error(option: str, path: str | os.PathLike[str], err: OSError) -> ToolError:
    return ToolError(
        f"{option} {os.fspath(path)}: cannot be written: {err.strerror or err}; "
        "no output of this run was kept"
    )


@contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO]:
    """
    A file object whose contents replace `path` when the block ends normally;
    if the block raises (or is interrupted), `path` is left untouched and the
    temporary file removed. `mode` is "w" (text, UTF-8) or "wb".
    """
    assert mode in ("w", "wb"), mode
    target = _resolved(path)
    if _is_special(target):
        with open(target, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as out:
            yield out
        return
    file_mode = _new_file_mode(target)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, file_mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_writer(path, "w") as out:
        out.write(text)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with atomic_writer(path, "wb") as out:
        out.write(data)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back for a moment (delivered when it ends)."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def replaceable_folder(path: Path, markers: tuple[str, ...]) -> bool:
    """Whether an existing folder may be replaced as a whole: it is empty, or it
    holds one of the `markers` files (it is one of our results folders)."""
    if not path.exists():
        return True
    if not path.is_dir():
        return False
    return not any(path.iterdir()) or any((path / m).is_file() for m in markers)


@contextmanager
def atomic_directory(path: str | os.PathLike[str]) -> Iterator[Path]:
    """
    A fresh temporary folder beside `path`; when the block ends normally it
    replaces `path` as a whole (an older folder's files do not survive next to
    the new ones). If the block raises or is interrupted, `path` is untouched
    and the temporary folder removed. The swap (two renames) runs with SIGINT and
    SIGTERM deferred, so Ctrl-C cannot land between them.
    """
    target = _resolved(path)  # a symlink to a folder: the folder is replaced
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        os.chmod(temp, 0o777 & ~_umask())
        yield temp
        with _signals_deferred():
            old: Path | None = None
            if target.exists():
                old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".old"))
                os.rmdir(old)
                os.rename(target, old)
            try:
                os.rename(temp, target)
            except BaseException:
                if old is not None:
                    os.rename(old, target)
                raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


__all__ = [
    "Named",
    "atomic_directory",
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_writer",
    "check_distinct",
    "check_output_directory",
    "check_output_file",
    "commit_outputs",
    "replaceable_folder",
]
