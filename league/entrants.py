"""Who plays: the submission folders under the league's ``submissions`` folder, the house
bots, and the lobby entrants (clients run by their authors).

A submission folder holds a manifest, ``daihinmin-bot.toml`` (the same as ``daihinmin
check-bot`` reads)::

    name = "mybot"                    # 1-15 letters, digits, '_', '-', '.'
    version = "1.0"
    author = "Jane Doe"
    command = "./mybot {host} {port}" # run in the folder; {port} is required
    build = "make"                    # optional: run once in the folder before it plays

A folder is picked up once its contents have stayed the same for two looks in a row (a
folder still being copied is not played half-written).  Its *fingerprint* is a hash of its
files; a folder with the same manifest name and another fingerprint is the entrant's new
version.

>>> fingerprint_of_text("a")[:8]
'ca978112'
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "daihinmin-bot.toml"
NAME = re.compile(r"[A-Za-z0-9_.\-]{1,15}")
MANIFEST_KEYS = {"name", "version", "author", "command", "build", "protocol"}
MAX_MANIFEST = 64 * 1024
MAX_HASHED_FILE = 8 * 1024 * 1024  # bigger files enter the fingerprint by size and time
MAX_FILES = 10_000
BUILD_TIMEOUT = 600.0


class EntrantError(ValueError):
    """A submission folder that cannot be played (the message is the reason shown)."""


@dataclass(frozen=True)
class FolderEntry:
    """A submission folder as found: its manifest, or why it cannot be used."""

    folder: Path
    fingerprint: str
    name: str | None = None
    version: str = "?"
    manifest: dict[str, Any] | None = None
    problem: str | None = None


def fingerprint_of_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def folder_fingerprint(folder: Path) -> str:
    """A hash of every file under ``folder`` (path and content; size and time for huge)."""
    h = hashlib.sha256()
    count = 0
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            count += 1
            if count > MAX_FILES:
                h.update(b"...too many files")
                return h.hexdigest()
            path = Path(root) / name
            rel = path.relative_to(folder).as_posix()
            try:
                st = path.lstat()
                h.update(f"{rel}\0{st.st_size}\0".encode())
                if path.is_symlink():
                    h.update(os.readlink(path).encode())
                elif st.st_size <= MAX_HASHED_FILE:
                    h.update(path.read_bytes())
                else:
                    h.update(str(st.st_mtime_ns).encode())
            except OSError:
                h.update(b"unreadable")
    return h.hexdigest()


def read_manifest(folder: Path) -> dict[str, Any]:
    """The checked manifest (:class:`EntrantError` says what is wrong)."""
    path = folder / MANIFEST
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_MANIFEST + 1)
    except FileNotFoundError:
        raise EntrantError(f"no {MANIFEST} in the folder") from None
    except OSError as exc:
        raise EntrantError(f"{MANIFEST}: cannot be read ({exc.strerror})") from None
    if len(raw) > MAX_MANIFEST:
        raise EntrantError(f"{MANIFEST}: longer than {MAX_MANIFEST} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise EntrantError(f"{MANIFEST}: not valid TOML ({exc})") from None
    unknown = sorted(set(data) - MANIFEST_KEYS)
    if unknown:
        raise EntrantError(f"{MANIFEST}: unknown keys {', '.join(unknown)}")
    for key in ("name", "version", "command"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise EntrantError(f"{MANIFEST}: {key} must be a non-empty text")
    if not NAME.fullmatch(data["name"]):
        raise EntrantError(f"{MANIFEST}: name must be 1-15 letters, digits, '_', '-', '.'")
    if len(data["version"]) > 40:
        raise EntrantError(f"{MANIFEST}: version is longer than 40 characters")
    try:
        argv = shlex.split(data["command"])
    except ValueError as exc:
        raise EntrantError(f"{MANIFEST}: command: {exc}") from None
    if not any("{port}" in a for a in argv):
        raise EntrantError(f"{MANIFEST}: command needs a {{port}} placeholder")
    build = data.get("build")
    if build is not None and (not isinstance(build, str) or not build.strip()):
        raise EntrantError(f"{MANIFEST}: build must be a non-empty text")
    if data.get("protocol", 20070) not in (20070, 20260):
        raise EntrantError(f"{MANIFEST}: protocol must be 20070 or 20260")
    return data


def look_at(folder: Path) -> FolderEntry:
    """One submission folder as it is now."""
    fp = folder_fingerprint(folder)
    try:
        manifest = read_manifest(folder)
    except EntrantError as exc:
        return FolderEntry(folder, fp, problem=str(exc))
    return FolderEntry(folder, fp, manifest["name"], manifest["version"], manifest)


class FolderWatch:
    """The submission folders, reported once they are stable (same fingerprint twice)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.seen: dict[Path, str] = {}

    def present(self) -> set[str]:
        """Every folder there now, stable or not (as :class:`FolderEntry` names it)."""
        return {str(folder.resolve()) for folder in self.seen}

    def stable(self) -> list[FolderEntry]:
        if self.root is None or not self.root.is_dir():
            self.seen = {}
            return []
        out = []
        now: dict[Path, str] = {}
        for folder in sorted(p for p in self.root.iterdir() if p.is_dir()
                             and not p.name.startswith(".")):
            entry = look_at(folder.resolve())
            now[folder] = entry.fingerprint
            if self.seen.get(folder) == entry.fingerprint:
                out.append(entry)
        self.seen = now
        return out


def build(folder: Path, command: str, timeout: float = BUILD_TIMEOUT) -> None:
    """Run the manifest's build in the folder (:class:`EntrantError` with its output)."""
    try:
        done = subprocess.run(shlex.split(command), cwd=folder, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise EntrantError(f"build {command!r} took more than {timeout:g} s") from None
    except (OSError, ValueError) as exc:
        raise EntrantError(f"build {command!r} could not start: {exc}") from None
    if done.returncode != 0:
        out = (done.stdout + done.stderr).decode("utf-8", "replace")[-2000:]
        raise EntrantError(f"build {command!r} failed (exit code {done.returncode}): {out}")


# How a submission is started: its command, run in its folder.  (The launcher of the
# sandbox runs a PlayerSpec with its folder; this wrapper is the same without it.)
IN_FOLDER = "import os, sys; os.chdir(sys.argv[1]); os.execvp(sys.argv[2], sys.argv[2:])"


def submission_argv(folder: str, command: str) -> list[str]:
    argv = shlex.split(command)
    return [sys.executable, "-c", IN_FOLDER, folder, *argv]


def house_argv(bot: str, name: str, rules: str, rule: tuple[str, ...], seed: int | None
               ) -> list[str]:
    """A bundled bot as its own process (``daihinmin bot``), playing the league's rules."""
    profile = re.sub(r"[^A-Za-z0-9_.\-]", "_", name)[:15] or bot  # the name the bot sends
    argv = [sys.executable, "-m", "daihinmin.tools.botproc", bot, "-q", "--host", "{host}",
            "--port", "{port}", "--name", profile, "--rules", rules]
    for item in rule:
        argv += ["--rule", item]
    if seed is not None:
        argv += ["--seed", str(seed)]
    return argv


__all__ = ["MANIFEST", "EntrantError", "FolderEntry", "FolderWatch", "build", "house_argv",
           "look_at", "read_manifest", "submission_argv"]
