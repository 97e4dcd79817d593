"""``--sandbox bwrap``: the bubblewrap command line around one player.

Inside, the player sees:

* a read-only view of the system (``/usr`` and its links, a few files of ``/etc``, the
  Python installation the platform runs on, and ``daihinmin``'s own packages, for bundled
  bots); no home folder, no other submission, no results, no ``/etc/shadow``;
* its own folder read-only at ``/submission`` (a submission) or, for a ``--cmd`` program,
  the folders of the files its command names, read-only at their own paths;
* a private writable scratch folder at ``/scratch`` (``HOME`` and the working folder of a
  ``--cmd`` program), which the launcher wipes after the match, and a private ``/tmp``
  (a small tmpfs);
* its own PID, IPC, UTS and network namespaces: no process of the host, and no network but
  the sandbox's own loopback, where the guard's inner half (:mod:`daihinmin.launch.inner`:
  ``inner.c``, or ``inner.py`` where that cannot be built) listens on the server's port and
  hands the listening socket out to the table's server, which accepts the player there.

The root of the sandbox is remounted read-only; every capability is dropped; the sandbox
dies with its guard (``--die-with-parent``) and the PID namespace takes every process in it
along when the player ends.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from .inner_program import InnerProgram

BWRAP_PATHS = ("/usr/bin/bwrap", "/bin/bwrap")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
             "passwd", "group", "nsswitch.conf", "hosts", "ssl", "ca-certificates",
             "mime.types", "protocols", "services")
# The daihinmin packages a bundled bot imports (each folder bound read-only where it is).
PACKAGES = ("values", "rules", "protocol", "contract", "driver", "records", "players",
            "client", "launch", "tools")
TMP_BYTES = 64 << 20
SUBMISSION = "/submission"
SCRATCH = "/scratch"
INNER = "/run/daihinmin/inner"  # the guard's inner half, read-only inside


class SandboxUnavailableError(RuntimeError):
    """``--sandbox bwrap`` where bubblewrap is not installed."""


def bwrap_path() -> str | None:
    for path in BWRAP_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("bwrap")


def require_bwrap() -> str:
    path = bwrap_path()
    if path is None:
        raise SandboxUnavailableError(
            "--sandbox bwrap needs bubblewrap (/usr/bin/bwrap; Debian/Ubuntu: apt install "
            "bubblewrap), which is not installed")
    return path


def python_paths() -> list[Path]:
    """The interpreter's installation and the daihinmin packages, read-only inside."""
    paths = {Path(sys.base_prefix), Path(sys.prefix)}
    here = Path(__file__).resolve().parent.parent  # the folder holding the packages
    from importlib.util import find_spec

    for name in ("daihinmin", *(f"daihinmin.{p}" for p in PACKAGES)):
        spec = find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            paths.add(Path(location))
    paths.discard(here)  # never the whole checkout: results may live there
    return sorted(p for p in paths if not str(p).startswith("/usr"))


def named_folders(argv: list[str]) -> list[Path]:
    """The folders of the existing files a ``--cmd`` command names (its program, a script)."""
    out: set[Path] = set()
    for arg in argv:
        if "/" not in arg:
            continue
        path = Path(arg)
        if path.is_file():
            folder = path.resolve().parent
            if not str(folder).startswith(("/usr", "/bin", "/lib", "/etc")):
                out.add(folder)
    return sorted(out)


def inner_argv(inner: InnerProgram) -> list[str]:
    """How the sandbox starts its inner program (its arguments follow)."""
    if inner.kind == "c":
        return [INNER]
    return [os.path.realpath(sys.executable), "-I", "-S", INNER]


def bwrap_argv(bwrap: str, player_argv: list[str], port: int, scratch: Path,
               folder: Path | None, inner: InnerProgram) -> list[str]:
    """bwrap + its inner program + the player; ``{inner_fd}`` is filled in by the guard."""
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--hostname", "sandbox", "--clearenv",
            "--ro-bind", "/usr", "/usr"]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for path in python_paths():
        argv += ["--ro-bind", str(path), str(path)]
    argv += ["--ro-bind", str(inner.path), INNER, "--bind", str(scratch), SCRATCH]
    if folder is not None:
        argv += ["--ro-bind", str(folder), SUBMISSION, "--chdir", SUBMISSION]
    else:
        for named in named_folders(player_argv):
            argv += ["--ro-bind", str(named), str(named)]
        argv += ["--chdir", SCRATCH]
    argv += ["--remount-ro", "/",
             "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
             "--setenv", "HOME", SCRATCH, "--setenv", "TMPDIR", "/tmp",
             "--setenv", "DAIHINMIN_SCRATCH", SCRATCH, "--setenv", "LANG", "C.UTF-8",
             "--", *inner_argv(inner), "{inner_fd}", str(port), "--", *player_argv]
    return argv


__all__ = ["SCRATCH", "SUBMISSION", "SandboxUnavailableError", "bwrap_argv", "bwrap_path",
           "require_bwrap"]
