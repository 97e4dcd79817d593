"""Which program runs first in the sandbox: ``inner.c``, built once per machine, or ``inner.py``.

The guard's inner half (:mod:`daihinmin.launch.inner`) starts every sandboxed player, so its
start-up is part of each player's.  ``inner.c`` does the same as ``inner.py`` without an
interpreter: it is compiled with the system ``cc`` (or ``$CC``) the first time a sandbox is
needed and kept in the user's cache folder (``$XDG_CACHE_HOME/daihinmin``, else
``~/.cache/daihinmin``), named by a hash of its source, the compiler and the machine, so a
changed source is built again.  Where there is no compiler, or it fails, ``inner.py`` runs
instead (a slower start, the same sandbox); a warning says so once per process.

The cache folder must belong to the user and be writable by nobody else (an inner program
that lied about the player's exit would falsify results); otherwise the program is built in
a private temporary folder instead.  Each build writes its own file and renames it into
place, so two matches starting at once never write the same file.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import logging
import os
import platform
import shlex
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("daihinmin.launch")

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "inner.c"
PYTHON_INNER = HERE / "inner.py"
BUILD_TIMEOUT = 120.0


class InnerBuildError(RuntimeError):
    """``inner.c`` could not be built (no compiler, or it failed: the message says why)."""


@dataclass(frozen=True)
class InnerProgram:
    """The inner program a sandbox runs: ``kind`` ``"c"`` (``path``: the built program) or
    ``"python"`` (``path``: ``inner.py``); ``note``: where it is, or why not C, for the log."""

    kind: str
    path: Path
    note: str = ""

    def describe(self) -> str:
        language = "C" if self.kind == "c" else "Python"
        return f"sandbox: the inner program in {language} ({self.note})"


def compiler() -> list[str] | None:
    """``$CC`` (split like a shell would) or ``cc`` on the PATH; None if there is none."""
    cc = os.environ.get("CC", "").strip()
    if cc:
        return shlex.split(cc)
    found = shutil.which("cc")
    return [found] if found else None


def cache_folder() -> Path | None:
    """The user's cache folder for daihinmin (None: no home to put it in)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base:
        return Path(base) / "daihinmin"
    try:
        return Path.home() / ".cache" / "daihinmin"
    except RuntimeError:
        return None


def is_private(path: Path) -> bool:
    """Owned by this user and writable by nobody else."""
    try:
        info = path.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def private_folder(folder: Path | None) -> Path:
    """``folder`` (made if missing) if it is private; else a fresh temporary folder."""
    if folder is not None:
        with contextlib.suppress(OSError):  # not private either, then
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if is_private(folder):
            return folder
    temporary = Path(tempfile.mkdtemp(prefix="daihinmin-inner-"))
    atexit.register(shutil.rmtree, temporary, ignore_errors=True)
    return temporary


def build_inner(cache: Path | None, cc: list[str] | None) -> Path:
    """``inner.c`` built for this source and compiler, from ``cache`` or built into it now."""
    if cc is None:
        raise InnerBuildError("no C compiler: cc is not on the PATH and $CC is not set")
    source = SOURCE.read_bytes()
    key = hashlib.sha256(b"\0".join([source, " ".join(cc).encode(),
                                     platform.machine().encode()])).hexdigest()[:16]
    folder = private_folder(cache)
    program = folder / f"inner-{key}"
    if is_private(program) and os.access(program, os.X_OK):
        return program
    partial = folder / f"inner-{key}.{os.getpid()}.partial"
    try:
        done = subprocess.run([*cc, "-O2", "-o", str(partial), str(SOURCE)],
                              capture_output=True, text=True, check=False,
                              stdin=subprocess.DEVNULL, timeout=BUILD_TIMEOUT)
        if done.returncode != 0:
            why = " ".join(done.stderr.split())[-300:]
            raise InnerBuildError(f"{cc[0]} could not build inner.c: {why}")
        os.chmod(partial, 0o755)
        os.replace(partial, program)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InnerBuildError(f"{cc[0]} could not build inner.c: {exc}") from None
    finally:
        partial.unlink(missing_ok=True)
    return program


def choose_inner(cache: Path | None, cc: list[str] | None) -> InnerProgram:
    """The C program if it can be had, else the Python one (saying why)."""
    try:
        program = build_inner(cache, cc)
    except InnerBuildError as exc:
        return InnerProgram("python", PYTHON_INNER, str(exc))
    return InnerProgram("c", program, str(program))


@functools.cache
def inner_program() -> InnerProgram:
    """The inner program for this process's sandboxes (built at most once; logged once)."""
    inner = choose_inner(cache_folder(), compiler())
    if inner.kind == "c":
        log.info("%s", inner.describe())
    else:
        log.warning("%s; each sandboxed player starts slower", inner.describe())
    return inner


__all__ = ["InnerBuildError", "InnerProgram", "build_inner", "choose_inner", "inner_program"]
