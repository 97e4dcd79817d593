"""Player processes of a headless match: bundled bots, commands or submission folders.

The launcher's API (what the runner, ``match``, tournaments and ``check-bot`` use):

* :class:`PlayerSpec`: how to start one player: ``argv`` with ``{host}``/``{port}``, and for
  a submission its ``folder`` (:mod:`daihinmin.launch.submission` makes those);
* :class:`LaunchOptions`: the :class:`~daihinmin.launch.limits.Limits`, the sandbox
  (``"none"`` or ``"bwrap"``) and how much stderr to keep;
* :func:`run_player`: run one player to its end and return a :class:`PlayerExit`: its exit,
  the limit that stopped it (``reason``: e.g. ``memory limit 512 MiB``; ``status``: the
  seat status that goes with it), its CPU and memory, how many processes it left behind
  (killed), and the end of its stderr (also written to ``stderr_file``, if given).

Every player runs under the guard (:mod:`daihinmin.launch.guard`), started in its own
session: the guard sets the limits, and when the player ends (by itself, by a limit, or
because the launcher stops it) kills every process the player started, even one that
left its session.  Stopping the guard (cancelling :func:`run_player`) is SIGTERM to its
group, then SIGKILL after a grace period.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import trio

from .limits import Limits
from .sandbox import bwrap_argv, require_bwrap

STOP_GRACE_SECONDS = 2.0
STDERR_KEEP = 64 * 1024
SANDBOXES = ("none", "bwrap")
GUARD = Path(__file__).with_name("guard.py")


@dataclass(frozen=True)
class PlayerSpec:
    """How to start one player; ``{host}`` and ``{port}`` in the arguments are filled in.
    ``folder``: a submission's folder (its working folder; ``/submission`` under bwrap)."""

    label: str
    argv: tuple[str, ...]
    folder: str | None = None

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


@dataclass(frozen=True)
class LaunchOptions:
    """How every player of a match is run (the same for all its seats)."""

    limits: Limits = field(default_factory=Limits)
    sandbox: str = "none"  # or "bwrap"
    stderr_keep: int = STDERR_KEEP

    def check(self) -> LaunchOptions:
        """Raises SandboxUnavailableError for bwrap where it is not installed."""
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"--sandbox {self.sandbox!r}: one of {', '.join(SANDBOXES)}")
        if self.sandbox == "bwrap":
            require_bwrap()
        return self


@dataclass
class PlayerExit:
    """How a player's process ended (``returncode`` < 0: killed by that signal; None: the
    guard could not tell).  ``reason``/``status``: the limit that stopped it, if one did."""

    returncode: int | None
    reason: str | None = None
    status: str | None = None
    stderr_tail: str = ""
    stderr_file: str | None = None
    cpu_seconds: float = 0.0
    max_rss_mib: float = 0.0
    left_behind: int = 0

    @property
    def failed(self) -> bool:
        return self.returncode != 0 or self.reason is not None


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


def guard_config(spec: PlayerSpec, host: str, port: int, options: LaunchOptions,
                 scratch: Path, stderr_file: Path | None) -> dict[str, object]:
    argv = spec.resolve(host, port)
    config: dict[str, object] = {"argv": argv, "limits": options.limits.to_guard(),
                                 "stderr_keep": options.stderr_keep,
                                 "stderr_file": str(stderr_file) if stderr_file else None,
                                 "cwd": spec.folder or None}
    if options.sandbox == "bwrap":
        folder = Path(spec.folder) if spec.folder else None
        config.update(argv=bwrap_argv(require_bwrap(), argv, port, scratch, folder),
                      cwd=None, relay_port=port, helpers=3)  # bwrap, its init, the relay
    return config


def exit_from_report(report: dict[str, object], limits: Limits) -> PlayerExit:
    code = report.get("returncode")
    limit = report.get("limit")
    reason = limits.describe(str(limit)) if limit else None
    return PlayerExit(
        returncode=code if isinstance(code, int) else None, reason=reason,
        status=Limits.status_of(str(limit)) if limit else None,
        stderr_tail=str(report.get("stderr_tail") or ""),
        stderr_file=str(report["stderr_file"]) if report.get("stderr_file") else None,
        cpu_seconds=float(report.get("cpu_seconds") or 0.0),  # type: ignore[arg-type]
        max_rss_mib=float(report.get("max_rss_mib") or 0.0),  # type: ignore[arg-type]
        left_behind=int(report.get("left_behind") or 0))  # type: ignore[call-overload]


async def run_player(spec: PlayerSpec, host: str, port: int,
                     options: LaunchOptions | None = None, *,
                     stderr_file: Path | None = None,
                     task_status: trio.TaskStatus[trio.Process] = trio.TASK_STATUS_IGNORED
                     ) -> PlayerExit:
    """Run one player under its guard to its end (OSError: the guard could not start)."""
    options = options or LaunchOptions()
    scratch = Path(tempfile.mkdtemp(prefix="daihinmin-scratch-"))
    try:
        config = guard_config(spec, host, port, options, scratch, stderr_file)
        env = {**os.environ, "DAIHINMIN_SCRATCH": str(scratch)}
        result = await trio.run_process(
            [sys.executable, "-I", "-S", str(GUARD)], check=False,
            stdin=json.dumps(config).encode(), capture_stdout=True, capture_stderr=True,
            start_new_session=True, deliver_cancel=stop_process_group, env=env,
            task_status=task_status)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    lines = result.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        report = json.loads(lines[-1]) if lines else {}
    except ValueError:
        report = {}
    if not isinstance(report, dict) or "returncode" not in report:
        why = result.stderr.decode("utf-8", "replace")[-2000:].strip()
        return PlayerExit(None, stderr_tail=f"the guard failed ({result.returncode}): {why}")
    return exit_from_report(report, options.limits)


def stderr_tail(data: bytes | str | None, lines: int = 15) -> str:
    if not data:
        return ""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return "\n".join(text.rstrip().splitlines()[-lines:])
