"""Player processes of a headless match: bundled bots or any command, each its own process.

A process is started in its own session, so stopping it stops everything it started; on
cancellation it gets SIGTERM, and SIGKILL if it is still there after a grace period.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass

import trio

STOP_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class PlayerSpec:
    """How to start one player; ``{host}`` and ``{port}`` in the arguments are filled in."""

    label: str
    argv: tuple[str, ...]

    @classmethod
    def bundled(cls, kind: str, name: str | None = None) -> PlayerSpec:
        argv = [sys.executable, "-m", "daihinmin.tools", "bot", kind,
                "--host", "{host}", "--port", "{port}"]
        if name:
            argv += ["--name", name]
        return cls(kind, tuple(argv))

    @classmethod
    def command(cls, command: str) -> PlayerSpec:
        argv = shlex.split(command)
        if not argv:
            raise ValueError("an empty --cmd")
        return cls(command, tuple(argv))

    def resolve(self, host: str, port: int) -> list[str]:
        return [a.replace("{host}", host).replace("{port}", str(port)) for a in self.argv]


async def stop_process_group(proc: trio.Process) -> None:
    """SIGTERM the process's group; SIGKILL it if it has not gone after the grace period."""
    if not hasattr(os, "killpg"):
        proc.terminate()
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    with trio.move_on_after(STOP_GRACE_SECONDS):
        await proc.wait()
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return


async def run_player_process(argv: list[str], *,
                             task_status: trio.TaskStatus[trio.Process] = trio.TASK_STATUS_IGNORED
                             ) -> subprocess.CompletedProcess[bytes]:
    """Run one player to its end; its stderr is kept to explain a failure."""
    return await trio.run_process(argv, check=False, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, capture_stderr=True,
                                  start_new_session=True, deliver_cancel=stop_process_group,
                                  task_status=task_status)


def stderr_tail(data: bytes | None, lines: int = 15) -> str:
    if not data:
        return ""
    text = data.decode("utf-8", "replace").rstrip()
    return "\n".join(text.splitlines()[-lines:])
