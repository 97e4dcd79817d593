"""Who plays: the submission folders under the league's ``submissions`` folder, the house
bots, and the lobby entrants (clients run by their authors).

A submission folder holds a manifest, ``daihinmin-bot.toml``, read as ``daihinmin
check-bot`` reads it (:mod:`daihinmin.launch.submission`).  A folder is picked up once its
contents have stayed the same for two looks in a row (a folder still being copied is not
played half-written).  Its *fingerprint* is a hash of its files; a folder with the same
manifest name and another fingerprint is the entrant's new version.

>>> fingerprint_of_text("a")[:8]
'ca978112'
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from daihinmin.launch.submission import (
    BuildError,
    Submission,
    SubmissionError,
    build_submission,
    load_submission,
)

MAX_HASHED_FILE = 8 * 1024 * 1024  # bigger files enter the fingerprint by size and time
MAX_FILES = 10_000


class EntrantError(ValueError):
    """A submission folder that cannot be played (the message is the reason shown)."""


@dataclass(frozen=True)
class FolderEntry:
    """A submission folder as found: its manifest, or why it cannot be used."""

    folder: Path
    fingerprint: str
    name: str | None = None
    version: str = "?"
    submission: Submission | None = None
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


def look_at(folder: Path) -> FolderEntry:
    """One submission folder as it is now."""
    fp = folder_fingerprint(folder)
    try:
        sub = load_submission(folder)
    except SubmissionError as exc:  # the reason, without the host's paths
        return FolderEntry(folder, fp, problem=str(exc).replace(f"{folder}/", "")
                           .replace(f"{folder}: ", ""))
    return FolderEntry(folder, fp, sub.name, sub.version[:40], sub)


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


def build(sub: Submission) -> None:
    """Run the manifest's build in the folder (:class:`EntrantError` with its output)."""
    try:
        build_submission(sub)
    except BuildError as exc:
        tail = exc.output.strip()[-2000:]
        raise EntrantError(f"{exc}" + (f": {tail}" if tail else "")) from None


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


__all__ = ["EntrantError", "FolderEntry", "FolderWatch", "build", "house_argv", "look_at"]
