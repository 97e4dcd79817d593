"""A submission: a folder with a bot and its manifest, ``daihinmin-bot.toml``.

::

    name = "mybot"                      # 1-15 letters, digits, '_', '-', '.'
    version = "1.0"
    author = "Jane Doe"
    command = "./mybot {host} {port}"   # run in the folder; {port} is required
    build = "make"                      # optional: run once in the folder before playing
    protocol = 20070                    # 20070 (UECda), or 20260 (the extension)

The manifest is data the user chose to run (a folder named on the command line or in the
user's own tournament config): its command is run as the player, its build in the folder
before the first match.  A match log or results database records the folder's path and
manifest, never a command to run again.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .process import PlayerSpec

MANIFEST = "daihinmin-bot.toml"
PROTOCOLS = (20070, 20260)
NAME = re.compile(r"[A-Za-z0-9_.\-]{1,15}")
BUILD_TIMEOUT = 600.0
KEYS = {"name", "version", "author", "command", "build", "protocol"}


class SubmissionError(ValueError):
    """A submission folder or manifest that cannot be used (the message says why)."""


class BuildError(SubmissionError):
    """The build command failed; ``output`` is the end of what it printed."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


@dataclass(frozen=True)
class Submission:
    folder: Path
    name: str
    version: str
    author: str
    command: str
    build: str | None = None
    protocol: int = 20070

    def spec(self, label: str | None = None) -> PlayerSpec:
        """The player: the manifest's command, run in the folder."""
        return PlayerSpec(label or self.name, tuple(shlex.split(self.command)),
                          folder=str(self.folder))

    def describe(self) -> str:
        return f"{self.name} {self.version} by {self.author} ({self.folder})"


def load_submission(folder: str | Path) -> Submission:
    """Read and check ``folder/daihinmin-bot.toml`` (SubmissionError says what is wrong)."""
    path = Path(folder)
    if not path.is_dir():
        raise SubmissionError(f"{folder}: not a folder (a submission is a folder with "
                              f"{MANIFEST})")
    manifest = path / MANIFEST
    try:
        with manifest.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise SubmissionError(f"{folder}: no {MANIFEST} in it") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SubmissionError(f"{manifest}: not a valid TOML file: {exc}") from None
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise SubmissionError(f"{manifest}: unknown keys {', '.join(unknown)} "
                              f"(known: {', '.join(sorted(KEYS))})")
    for key in ("name", "version", "author", "command"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise SubmissionError(f"{manifest}: {key} must be a non-empty string")
    if not NAME.fullmatch(data["name"]):
        raise SubmissionError(f"{manifest}: name {data['name']!r:.40} must be 1-15 letters, "
                              "digits, '_', '-' or '.'")
    try:
        argv = shlex.split(data["command"])
    except ValueError as exc:
        raise SubmissionError(f"{manifest}: command: {exc}") from None
    if not argv or not any("{port}" in a for a in argv):
        raise SubmissionError(f"{manifest}: command needs a {{port}} placeholder (and "
                              "usually {host})")
    build = data.get("build")
    if build is not None and (not isinstance(build, str) or not build.strip()):
        raise SubmissionError(f"{manifest}: build must be a non-empty string")
    protocol = data.get("protocol", 20070)
    if isinstance(protocol, bool) or protocol not in PROTOCOLS:
        raise SubmissionError(f"{manifest}: protocol must be one of "
                              f"{', '.join(map(str, PROTOCOLS))}")
    return Submission(path.resolve(), data["name"], data["version"], data["author"],
                      data["command"], build, int(protocol))


def build_submission(sub: Submission, timeout: float = BUILD_TIMEOUT) -> str:
    """Run the build command in the folder (the user's own choice to run it); its output.
    BuildError if it fails or takes longer than ``timeout`` seconds."""
    if sub.build is None:
        return ""
    try:
        done = subprocess.run(shlex.split(sub.build), cwd=sub.folder, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{sub.name}: build {sub.build!r} took more than {timeout:g} s",
                         "") from None
    except OSError as exc:
        raise BuildError(f"{sub.name}: build {sub.build!r} could not start: {exc}", "") \
            from None
    output = (done.stdout + done.stderr).decode("utf-8", "replace")[-4000:]
    if done.returncode != 0:
        raise BuildError(f"{sub.name}: build {sub.build!r} failed (exit code "
                         f"{done.returncode})", output)
    return output


__all__ = [
    "MANIFEST",
    "BuildError",
    "Submission",
    "SubmissionError",
    "build_submission",
    "load_submission",
    "prepare_submissions",
]


def prepare_submissions(folders: Iterable[str | Path]) -> list[Submission]:
    """Load and build each folder once, before anything is played (SubmissionError)."""
    done: dict[Path, Submission] = {}
    for folder in folders:
        sub = load_submission(folder)
        if sub.folder not in done:
            build_submission(sub)
            done[sub.folder] = sub
    return list(done.values())
