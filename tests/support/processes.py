"""Processes of the machine, read from /proc: what a test looks for when nothing of a
player may be left running."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def processes_with(marker: str) -> int:
    """How many player processes anywhere mention ``marker`` (a leaked child is re-parented).
    A command line with ``--cmd`` is the runner's, or a fork of it not yet turned into a
    player (it names them all): not counted, or a fork in flight could pass for a player."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            line = Path(f"/proc/{entry}/cmdline").read_bytes() if entry.isdigit() else b""
        except OSError:
            continue
        if marker.encode() in line and b"--cmd" not in line:
            count += 1
    return count


#: The shim: Ctrl-C (SIGINT) back at its default, then the command in its place (same pid).
_DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                   "os.execvp(sys.argv[1], sys.argv[1:])")


def as_a_terminal_starts_it(cmd: list[str]) -> list[str]:
    """``cmd`` started as a terminal starts a foreground job, with Ctrl-C at its default.

    A child inherits an ignored SIGINT, and Python then keeps it ignored: a test process that
    ignores it (a test worker after some library set it so) would start a program that never
    sees the Ctrl-C the test sends it."""
    return [sys.executable, "-c", _DEFAULT_SIGINT, *cmd]
