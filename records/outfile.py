"""Output files that are never clobbered and never written by two processes at once.

A new output file (match log, results database) is created exclusively: an existing path is
refused unless the caller asked to overwrite it (and then only a regular file), a directory
or a missing parent folder is refused with a plain message.  The writer then holds an OS
lock (``fcntl.flock``, exclusive, non-blocking) on the file for as long as it writes, so a
second writer (a second ``--resume`` of the same log, a second tournament on one database)
is refused at once instead of interleaving its records.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> path = Path(folder, "x.jsonl")
>>> f = claim_output(path, what="log")
>>> claim_output(path, what="log")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
daihinmin.records.outfile.OutputRefusedError: log .../x.jsonl exists; ...
>>> claim_output(path, what="log", overwrite=True)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
daihinmin.records.outfile.OutputLockedError: log .../x.jsonl is being written by another process...
>>> f.close()
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path
from typing import IO

from .errors import RecordsError


class OutputRefusedError(RecordsError):
    """An output file cannot be used: it exists, is not a regular file, or its folder is
    missing (exit code 5, docs/EXIT_CODES.md)."""


class OutputLockedError(OutputRefusedError):
    """Another process holds the output file's lock (it is writing it now)."""


def check_output_path(path: Path, *, what: str, overwrite: bool = False,
                      existing: bool = False, make_folder: bool = False) -> None:
    """Refuse a path that cannot be a new output file (or, with ``existing``, the file to go
    on writing): a directory, a device, a missing folder, or an existing file when neither
    ``existing`` nor ``overwrite`` allows it."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        if make_folder and not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
        else:
            raise OutputRefusedError(f"{what} {path}: the folder {folder} does not exist")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if existing:
            raise OutputRefusedError(f"{what} {path} does not exist") from None
        return
    except OSError as exc:
        raise OutputRefusedError(f"{what} {path}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise OutputRefusedError(f"{what} {path} is a directory")
    if not stat.S_ISREG(mode):
        raise OutputRefusedError(f"{what} {path} is not a regular file")
    if not existing and not overwrite:
        raise OutputRefusedError(f"{what} {path} exists; give another path, or --overwrite "
                                 f"to replace it")


def lock_file(f: IO[bytes] | IO[str], path: Path, what: str) -> None:
    """Take the exclusive lock of an open file, or refuse at once."""
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise OutputLockedError(f"{what} {path} is being written by another process; wait "
                                f"for it to finish (one writer at a time)") from None


def claim_output(path: Path, *, what: str, overwrite: bool = False, append: bool = False,
                 make_folder: bool = False) -> IO[str]:
    """Open ``path`` for writing, locked: created exclusively (``O_EXCL``) unless
    ``overwrite`` (truncated only once the lock is held) or ``append`` (an existing file
    that goes on)."""
    check_output_path(path, what=what, overwrite=overwrite, existing=append,
                      make_folder=make_folder)
    flags = os.O_WRONLY | os.O_CLOEXEC
    if append:
        flags |= os.O_APPEND
    elif overwrite:
        flags |= os.O_CREAT
    else:
        flags |= os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:  # created by someone else since the check
        raise OutputRefusedError(f"{what} {path} exists; give another path, or --overwrite "
                                 f"to replace it") from None
    except OSError as exc:
        raise OutputRefusedError(f"{what} {path}: {exc.strerror or exc}") from exc
    f = os.fdopen(fd, "a" if append else "w", encoding="utf-8")
    try:
        lock_file(f, path, what)
        if overwrite and not append:
            f.truncate(0)
    except BaseException:
        f.close()
        raise
    return f


__all__ = ["OutputLockedError", "OutputRefusedError", "check_output_path", "claim_output",
           "lock_file"]
