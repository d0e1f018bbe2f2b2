"""
Writing outputs so that a failed, interrupted or killed run never destroys,
half-writes or mixes them (docs/outputs.md).

Every file a TapeFlow tool writes goes to a temporary file in the same directory
first and is renamed over the target only once it is complete (`os.replace` is
atomic within a file system): a reader sees the old file or the new one, never an
empty or partial one, and a run that fails leaves the old file as it was. A
results folder is built complete as a temporary sibling folder and swapped in by
one exchange of names, under a lock, with a journal that the next run uses to
finish or undo a swap that was killed (`atomic_directory`).

The `check_*` functions let a tool refuse an output location before it computes
anything: a directory named as an output file, a missing or read-only parent, a
regular file named as a folder, an output that names one of the run's inputs or
another output (`check_distinct`).

A run with several output files (`tapeflow-sim --out --json --timeline`) commits
them together (`commit_outputs`): all are written to temporary files first, and
only when every one is complete are they renamed into place, so one that fails
(a full disk) leaves none of the run's outputs behind and every older file as it
was; a journal lets the next run complete renames a kill interrupted
(`recover_outputs`). Each error names the option and the path. What a killed run
left is deleted only when no live run holds it (`flock`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import glob
import hashlib
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from tapeflow_tools.diagnostics import ToolError
from tapeflow_tools.interrupt import killed_here


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
        existing = next(p for p in parent.parents if p.exists() or p == p.parent)
        if parent.exists() or not existing.is_dir():
            file = parent if parent.exists() else existing
            raise ToolError(f"{where}: {file} is a file, not a directory")
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
        for other, _, other_target in given[n + 1 :]:
            if _same_file(target, other_target):
                raise ToolError(f"{option} and {other} both name {os.fspath(path)}")


def commit_outputs(
    outputs: Sequence[tuple[str, str | os.PathLike[str], bytes]],
    notice: Callable[[str], None] | None = None,
) -> None:
    """Write every (option, path, contents) of one run, or none of them.

    Each regular file is written to a temporary file beside it; then each device
    (`/dev/null`, `/dev/full`) is written in place; only when all succeeded are the
    temporary files renamed over their targets (with Ctrl-C deferred), an older
    file kept as a hard link until every rename is done, so that a failure
    restores it. An error names the option and the path and says that nothing was
    kept. A journal beside the first output lists the renames while they run: a
    run killed among them (SIGKILL) is completed by the next run that writes
    beside it (`recover_outputs`, which `notice` hears)."""
    say = notice if notice is not None else _note
    recover_outputs([path for _, path, _ in outputs], say)
    staged: list[tuple[str, str, Path, Path]] = []  # option, path, temp, target
    held: list[int] = []
    try:
        for option, path, data in outputs:
            target = _resolved(path)
            if _is_special(target):
                continue
            try:
                staged.append((option, os.fspath(path), _staged(target, data, held), target))
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
        if staged:
            with _signals_deferred():
                journal = _begin_commit(staged, held)
                try:
                    _rename_all(staged)
                finally:
                    journal.unlink(missing_ok=True)
    finally:
        for _, _, temp, _ in staged:
            temp.unlink(missing_ok=True)
        for fd in held:
            os.close(fd)


def _backup(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.old")


def _begin_commit(staged: list[tuple[str, str, Path, Path]], held: list[int]) -> Path:
    """The journal of the renames about to run, beside the first output, locked
    while this run lives (`held`)."""
    first = staged[0][3]
    record = {
        "written_by": "tapeflow",
        "renames": [[os.fspath(temp), os.fspath(target)] for _, _, temp, target in staged],
        "backups": [os.fspath(_backup(target)) for _, _, _, target in staged],
    }
    journal = first.with_name(f".{first.name}.commit.json")
    fd, name = tempfile.mkstemp(dir=first.parent, prefix=f".{first.name}.", suffix=".tmp")
    held.append(fd)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
        os.fsync(fd)
        os.rename(name, journal)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return journal


def recover_outputs(
    paths: Sequence[str | os.PathLike[str] | None], notice: Callable[[str], None]
) -> None:
    """Before a run writes `paths`: complete the renames of a run killed among them
    (its journal beside them, whose lock no live run holds), so that its outputs
    are all that run's, and delete the temporary files dead runs left beside
    `paths` (`notice` hears what was completed)."""
    targets = [_resolved(p) for p in paths if p is not None]
    for folder in dict.fromkeys(t.parent for t in targets if not _is_special(t)):
        if not folder.is_dir():
            continue
        with _locked(folder):
            for journal in sorted(folder.glob(".*.commit.json")):
                fd = _held(journal)
                if fd is None:
                    continue  # a live run's
                try:
                    _complete(journal, notice)
                finally:
                    os.close(fd)
            for target in (t for t in targets if t.parent == folder):
                for temp in folder.glob(f".{glob.escape(target.name)}.*.tmp"):
                    fd = _held(temp) if temp.is_file() and not temp.is_symlink() else None
                    if fd is not None:
                        temp.unlink(missing_ok=True)
                        os.close(fd)


def _complete(journal: Path, notice: Callable[[str], None]) -> None:
    try:
        record = json.loads(journal.read_text(encoding="utf-8"))
        renames = [(Path(temp), Path(target)) for temp, target in record["renames"]]
        backups = [Path(b) for b in record["backups"]]
    except (OSError, ValueError, KeyError, TypeError):
        return  # not a journal of ours
    if record.get("written_by") != "tapeflow":
        return
    for temp, target in renames:
        if temp.exists():
            os.replace(temp, target)
    for backup in backups:
        backup.unlink(missing_ok=True)
    journal.unlink()
    notice(
        f"{', '.join(os.fspath(t) for _, t in renames)}: completed the outputs of a run "
        "killed while it put them in place; they are all that run's"
    )


def _staged(target: Path, data: bytes, held: list[int]) -> Path:
    """`data` in a temporary file beside `target`, locked while this run lives
    (`held`) so that no other run takes it for a dead run's."""
    file_mode = _new_file_mode(target)
    with _locked(target.parent):
        fd, temp_name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
        held.append(os.dup(fd))
        fcntl.flock(held[-1], fcntl.LOCK_EX)
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
                backup = _backup(target)
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
            killed_here("commit:renamed")
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


FOLDER_MARKER = ".tapeflow-results.json"
"""The file a tool writes into each folder it writes (`atomic_directory`): JSON
`{"written_by": "tapeflow", "files": {relative path: sha256}}`, the list of what
the tool wrote. A folder is recognised as the tool's by this file alone (never by
a file name a user may also have, such as `report.md`), and only the files it
lists are ever replaced or deleted."""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def written_files(folder: Path) -> dict[str, str] | None:
    """The files (relative path -> sha256) a tool wrote into `folder`, as its
    marker lists them; None if it has no readable marker."""
    try:
        manifest = json.loads((folder / FOLDER_MARKER).read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        return None
    return files


def check_results_folder(path: str | os.PathLike[str], option: str, tool: str) -> None:
    """Refuse, before any work, a folder that a results folder cannot be written
    to: one that holds files but no marker (the tool did not write it), or in
    which a file the tool wrote has been changed since (a user's edit would be
    lost). Files a user added to an earlier results folder are kept when the
    folder is written again (`atomic_directory`)."""
    target = Path(os.path.realpath(path))
    where = f"{option} {os.fspath(path)}"
    if not target.is_dir() or not any(target.iterdir()):
        return
    written = written_files(target)
    if written is None:
        raise ToolError(
            f"{where}: the folder exists and is not a {tool} results folder (it has "
            f"no {FOLDER_MARKER}, which {tool} writes into its folders); its files are "
            f"not {tool}'s to replace, so name a new or empty folder"
        )
    changed = _changed(target)
    if changed:
        raise ToolError(
            f"{where}: {', '.join(changed)} changed since {tool} wrote "
            f"{'it' if len(changed) == 1 else 'them'}; writing the folder again would "
            "replace the changes: move them away or name another folder"
        )


def _changed(folder: Path) -> list[str]:
    """The files the marker of `folder` lists that were changed since."""
    return sorted(
        name
        for name, digest in (written_files(folder) or {}).items()
        if (folder / name).is_file()
        and not (folder / name).is_symlink()
        and _digest(folder / name) != digest
    )


def _write_marker(folder: Path, run: str) -> None:
    files = {
        p.relative_to(folder).as_posix(): _digest(p)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
    # The folders too: one the tool made may hold no file (a sweep without figures).
    dirs = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_dir())
    manifest = {"written_by": "tapeflow", "files": files, "dirs": dirs, "run": run}
    text = json.dumps(manifest, indent=1, sort_keys=True)
    (folder / FOLDER_MARKER).write_text(text + "\n", encoding="utf-8")


def written_dirs(folder: Path) -> set[str]:
    """The folders (relative paths) a tool made in `folder`, as its marker lists
    them; empty if it has no readable marker or the marker predates the list."""
    try:
        dirs = json.loads((folder / FOLDER_MARKER).read_text(encoding="utf-8"))["dirs"]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {d for d in dirs if isinstance(d, str)} if isinstance(dirs, list) else set()


def _foreign(folder: Path) -> list[str]:
    """What in `folder` its marker does not list (relative paths, a folder holding
    nothing listed as one entry): what a user put there."""
    written = written_files(folder) or {}
    owned_dirs = {p.as_posix() for name in written for p in Path(name).parents}
    owned_dirs |= written_dirs(folder)
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        base = Path(root).relative_to(folder)
        for name in sorted(dirs):
            rel = (base / name).as_posix()
            if rel not in owned_dirs:
                found.append(rel)
        dirs[:] = sorted(d for d in dirs if (base / d).as_posix() in owned_dirs)
        for name in sorted(files):
            rel = (base / name).as_posix()
            if rel not in written and rel != FOLDER_MARKER:
                found.append(rel)
    return found


def _note(message: str) -> None:
    print(f"tapeflow: note: {message}", file=sys.stderr)


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """`folder` locked (flock) against the other runs of the tools: they swap,
    recover and clean up results folders in it one at a time. Where the folder
    cannot be opened for the lock, unlocked."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _held(path: Path, how: int = fcntl.LOCK_EX) -> int | None:
    """A descriptor of `path` holding its lock (`how`, without waiting): the mark
    of a live run, for as long as it is open. None if another process holds it."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def claim_folder(folder: Path, debris: str) -> int | None:
    """Mark a run of the tools as live in `folder` for as long as the returned
    descriptor is open (a shared lock on it); first, if no other run is live
    there, delete the files matching the pattern `debris` (a glob below `folder`:
    the temporary files of interrupted runs). None if `folder` cannot be made or
    opened."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = _held(folder)
        if fd is not None:  # no other run: what matches is an interrupted run's
            for leftover in folder.glob(debris):
                if leftover.is_file() and not leftover.is_symlink():
                    leftover.unlink(missing_ok=True)
        else:
            fd = os.open(folder, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError:
        return None
    return fd


def _exchange(a: Path, b: Path) -> bool:
    """Swap the names `a` and `b` in one step (Linux's renameat2 with
    RENAME_EXCHANGE); False where the system or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_cwd, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), os.fspath(a))


def _same_entry(a: Path, b: Path) -> bool:
    """Whether `b` holds what `a` holds: the same file (a hard link), equal bytes,
    or symbolic links to the same place."""
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)
    if not (a.is_file() and b.is_file()):
        return False
    return _same_file(a, b) or (
        a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
    )


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


def _bring_over(old: Path, new: Path, foreign: list[str]) -> None:
    """The user's entries of `old` into `new` as hard links (copies where there
    are none): both folders hold them until the swap is done."""
    for name in foreign:
        source, target = old / name, new / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir() and not source.is_symlink():
            shutil.copytree(source, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(os.fspath(source), os.fspath(target))


def _retire(old: Path, new: Path) -> list[str]:
    """Empty `old`, a results folder `new` replaced: the files its marker lists
    and its user's entries that `new` holds too are deleted, a user's entry `new`
    lacks is moved there; what differs from `new`'s entry of its name is left in
    `old` and returned (relative paths). `old` is removed once empty."""
    written = set(written_files(old) or {}) | {FOLDER_MARKER}
    left: list[str] = []
    for root, dirs, files in os.walk(old, topdown=False):
        base = Path(root)
        for name in [*files, *(d for d in dirs if (base / d).is_symlink())]:
            entry = base / name
            rel = entry.relative_to(old).as_posix()
            twin = new / rel
            if rel in written or _same_entry(entry, twin):
                entry.unlink()
            elif not twin.exists() and not twin.is_symlink():
                twin.parent.mkdir(parents=True, exist_ok=True)
                os.rename(entry, twin)
            else:
                left.append(rel)
        with contextlib.suppress(OSError):
            os.rmdir(base)  # only if empty
    return sorted(left)


def _journal(target: Path) -> Path:
    return target.with_name(f".{target.name}.swap.json")


def _recover(target: Path, notice: Callable[[str], None]) -> None:
    """Under `_locked`: finish or roll back the swap of a run that died in it (its
    journal is there), and remove what dead runs left beside `target` (a folder
    whose lock no live run holds)."""
    journal = _journal(target)
    if journal.exists():
        try:
            record = json.loads(journal.read_text(encoding="utf-8"))
            temp, aside = target.with_name(record["temp"]), target.with_name(record["aside"])
            run = record["run"]
        except (OSError, ValueError, KeyError, TypeError):
            record = None
        if record is not None:
            notice(_resume(target, temp, aside, run))
        journal.unlink(missing_ok=True)
    for entry in sorted(target.parent.glob(f".{glob.escape(target.name)}.*")):
        if entry.suffix not in (".tmp", ".old") or entry.is_symlink() or not entry.is_dir():
            continue
        fd = _held(entry)
        if fd is None:
            continue  # a live run's
        try:
            if entry.suffix == ".tmp":
                shutil.rmtree(entry)  # a build no run finished: the user's files are links
            elif not target.exists():
                os.rename(entry, target)
                notice(f"{target}: restored the earlier results from {entry.name}")
            else:
                left = _retire(entry, target)
                if left:
                    notice(f"{entry}: holds files no run wrote ({', '.join(left)}); left there")
        except OSError as err:
            notice(f"{entry}: left by a run that was killed; cannot be cleaned up: {err}")
        finally:
            os.close(fd)


def recover_directory(path: str | os.PathLike[str], notice: Callable[[str], None]) -> None:
    """Finish or undo the swap of a run killed while it replaced the results folder
    `path`, and remove what dead runs left beside it (as `atomic_directory` does
    before it writes); `notice` hears what was done. For a tool to call before it
    checks `path`."""
    target = _resolved(path)
    if target.parent.is_dir():
        with _locked(target.parent):
            _recover(target, notice)


def _resume(target: Path, temp: Path, aside: Path, run: str) -> str:
    """Finish or roll back the swap of a run killed in it; what was done."""
    if not target.exists() and aside.exists() and temp.exists() and _run_of(temp) == run:
        os.rename(temp, target)  # killed between the two renames
    if target.exists() and _run_of(target) == run:  # the new folder is in place
        old = temp if temp.exists() else aside  # exchanged, or also renamed aside
        left = _retire(old, target) if old.exists() else []
        kept = f"; {old} holds files no run wrote ({', '.join(left)}), left there" if left else ""
        return f"{target}: finished putting in place the results of a run killed doing so{kept}"
    if not target.exists() and aside.exists():
        os.rename(aside, target)
    shutil.rmtree(temp, ignore_errors=True)  # the new build; the user's files are links
    return f"{target}: a run was killed before its results replaced these; they are as before"


def _run_of(folder: Path) -> str | None:
    try:
        run = json.loads((folder / FOLDER_MARKER).read_text(encoding="utf-8")).get("run")
    except (OSError, ValueError, AttributeError):
        return None
    return run if isinstance(run, str) else None


@contextmanager
def atomic_directory(
    path: str | os.PathLike[str], notice: Callable[[str], None] | None = None
) -> Iterator[Path]:
    """
    A fresh temporary folder beside `path`; when the block ends normally it
    replaces `path` whole, with the files of `path` that no earlier run wrote
    (as its marker, `FOLDER_MARKER`, lists them: a user's notes) brought over
    untouched (`notice` hears which), and gets a marker listing what it holds. If
    a user's file has the name of a new one, or a listed file was changed since
    it was written, the block's result is refused (ToolError) and `path` left as
    it was. If the block raises or is interrupted, `path` is untouched and the
    temporary folder removed. The swap is one atomic exchange of names, under a
    lock on the folder around `path` and with a journal beside it, so that a run
    killed at any instant leaves `path` complete (old or new) and the next run
    finishes or undoes it, and says so.
    """
    say = notice if notice is not None else _note
    target = _resolved(path)  # a symlink to a folder: the folder is replaced
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.parent):
        _recover(target, say)
        temp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
        live = _held(temp)  # ours until the swap: no other run cleans it up
    swapping = False
    try:
        os.chmod(temp, 0o777 & ~_umask())
        yield temp
        run = uuid.uuid4().hex
        _write_marker(temp, run)
        with _locked(target.parent):
            _recover(target, say)  # a run that was killed meanwhile
            foreign = _foreign(target) if target.exists() else []
            _refuse(target, temp, foreign)
            _bring_over(target, temp, foreign)
            swapping = True
            left = _swap(temp, target, run)
        if foreign:
            shown = [name + ("/" if (target / name).is_dir() else "") for name in sorted(foreign)]
            say(f"{target}: kept what no earlier run wrote there: {', '.join(shown)}")
        if left:  # never deleted: not ours
            old = target.with_name(temp.name[: -len(".tmp")] + ".old")
            say(f"{old}: holds files unlike the new folder's ({', '.join(left)}); left there")
    except BaseException:
        if not swapping:
            shutil.rmtree(temp, ignore_errors=True)
        raise
    finally:
        if live is not None:
            os.close(live)


def _refuse(target: Path, temp: Path, foreign: list[str]) -> None:
    """ToolError if writing `temp` over `target` would lose a user's work."""
    changed = _changed(target) if target.exists() else []
    if changed:
        raise ToolError(
            f"{target}: {', '.join(changed)} changed since "
            f"{'it was' if len(changed) == 1 else 'they were'} written; the new results "
            "would replace the changes: move them away and run again (the results are cached)"
        )
    clashes = [name for name in foreign if (temp / name).exists()]
    if clashes:
        raise ToolError(
            f"{target}: {', '.join(clashes)} would be replaced by this run's "
            f"file{'s' if len(clashes) > 1 else ''} of the same name, but an earlier "
            "run did not write it; move it away and run again (the results are cached)"
        )


def _swap(temp: Path, target: Path, run: str) -> list[str]:
    """Put the complete `temp` in the place of `target` and retire the old folder
    (`_retire`); what of it is left. Journaled (`_recover`), signals deferred. A
    failure before the swap removes `temp`; one after it leaves the journal."""
    with _signals_deferred():
        if not target.exists():
            try:
                os.rename(temp, target)
            except BaseException:
                shutil.rmtree(temp, ignore_errors=True)
                raise
            return []
        aside = target.with_name(temp.name[: -len(".tmp")] + ".old")
        record = {"written_by": "tapeflow", "temp": temp.name, "aside": aside.name, "run": run}
        journal = _journal(target)
        try:
            atomic_write_text(journal, json.dumps(record) + "\n")
            killed_here("swap:journal")
            if _exchange(temp, target):
                killed_here("swap:exchanged")
                os.rename(temp, aside)
            else:  # two renames: `target` is missing for an instant (the journal says why)
                os.rename(target, aside)
                killed_here("swap:between")
                try:
                    os.rename(temp, target)
                except BaseException:
                    os.rename(aside, target)
                    raise
        except BaseException:
            if _run_of(target) != run:
                shutil.rmtree(temp, ignore_errors=True)
                journal.unlink(missing_ok=True)
            raise
        killed_here("swap:done")
        journal.unlink()  # the new folder is in place: what remains is cleaning up
        try:
            return _retire(aside, target)
        except OSError as err:
            return [f"(it cannot be emptied: {err})"]


__all__ = [
    "Named",
    "atomic_directory",
    "atomic_write_bytes",
    "FOLDER_MARKER",
    "atomic_write_text",
    "atomic_writer",
    "check_distinct",
    "claim_folder",
    "check_results_folder",
    "written_dirs",
    "check_output_directory",
    "check_output_file",
    "commit_outputs",
    "recover_directory",
    "recover_outputs",
    "written_files",
]
