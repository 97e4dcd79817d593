"""Processes of the machine, read from /proc: what a test looks for when nothing of a
player may be left running."""

from __future__ import annotations

import os
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
