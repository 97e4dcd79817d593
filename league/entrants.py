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

MAX_HASHED = 64 * 1024 * 1024  # bytes of a folder read for its fingerprint; the rest by
# size and time
MAX_FILES = 10_000


class EntrantError(ValueError):
    """A submission folder that cannot be played: the message is the reason everyone sees,
    ``detail`` what it printed (its error output: the host's to see)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.detail = detail


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


def folder_files(folder: Path) -> list[tuple[str, os.stat_result | None]]:
    """Every file under ``folder`` (relative path, its lstat), sorted; at most MAX_FILES."""
    out: list[tuple[str, os.stat_result | None]] = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if len(out) >= MAX_FILES:
                return out
            path = Path(root) / name
            try:
                st: os.stat_result | None = path.lstat()
            except OSError:
                st = None
            out.append((path.relative_to(folder).as_posix(), st))
    return out


def stat_signature(files: list[tuple[str, os.stat_result | None]]) -> str:
    """Paths, sizes and times: a change to any file changes it (cheap: no file is read)."""
    return fingerprint_of_text("\n".join(
        f"{rel}\0{st.st_size}\0{st.st_mtime_ns}" if st else f"{rel}\0?" for rel, st in files))


def folder_fingerprint(folder: Path, files: list[tuple[str, os.stat_result | None]] | None
                       = None) -> str:
    """A hash of every file under ``folder``: its path and content (past MAX_HASHED bytes in
    all, sizes and times only)."""
    h = hashlib.sha256()
    budget = MAX_HASHED
    for rel, st in files if files is not None else folder_files(folder):
        path = folder / rel
        if st is None:
            h.update(f"{rel}\0unreadable".encode())
            continue
        h.update(f"{rel}\0{st.st_size}\0".encode())
        try:
            if path.is_symlink():
                h.update(os.readlink(path).encode())
            elif st.st_size <= budget:
                h.update(path.read_bytes()[:budget])
                budget -= st.st_size
            else:
                h.update(str(st.st_mtime_ns).encode())
        except OSError:
            h.update(b"unreadable")
    if len(files or ()) >= MAX_FILES:
        h.update(b"...too many files")
    return h.hexdigest()


def look_at(folder: Path, fp: str | None = None) -> FolderEntry:
    """One submission folder as it is now (``fp``: its fingerprint, if known)."""
    fp = fp or folder_fingerprint(folder)
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
        self.known: dict[Path, tuple[str, str]] = {}  # folder -> (stat signature, fingerprint)

    def fingerprint(self, folder: Path) -> str:
        """The folder's fingerprint, its files read again only when a stat changed."""
        files = folder_files(folder)
        signature = stat_signature(files)
        cached = self.known.get(folder)
        if cached is None or cached[0] != signature:
            cached = self.known[folder] = (signature, folder_fingerprint(folder, files))
        return cached[1]

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
            fp = self.fingerprint(folder.resolve())
            now[folder] = fp
            if self.seen.get(folder) == fp:
                out.append(look_at(folder.resolve(), fp))
        self.seen = now
        self.known = {f: v for f, v in self.known.items() if f in {p.resolve() for p in now}}
        return out


def build(sub: Submission) -> None:
    """Run the manifest's build in the folder (:class:`EntrantError` with its output)."""
    try:
        build_submission(sub)
    except BuildError as exc:
        raise EntrantError(str(exc), exc.output.strip()[-4000:]) from None


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
