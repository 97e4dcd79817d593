"""Player processes of a headless match: bundled bots, commands or submission folders.

The launcher's API (what the runner, ``match``, tournaments and ``check-bot`` use):

* :class:`PlayerSpec`: how to start one player: ``argv`` with ``{host}``/``{port}``, and for
  a submission its ``folder`` (:mod:`daihinmin.launch.submission` makes those);
* :class:`LaunchOptions`: the :class:`~daihinmin.launch.limits.Limits`, the sandbox
  (``"none"`` or ``"bwrap"``) and how much stderr to keep;
* :func:`run_player`: run one player to its end and return a :class:`PlayerExit`: its exit,
  the limit that stopped it (``reason``: e.g. ``memory limit 512 MiB``; ``status``: the
  seat status that goes with it), its CPU and memory, how many processes it left behind
  (killed), and the end of its stderr (also written to ``stderr_file``, if given).  Under
  bwrap the player connects to a listening socket inside its sandbox, which ``on_listener``
  gets (the table's server accepts the player on it).

Every player runs under the guard (:mod:`daihinmin.launch.guard`), started in its own
session: the guard sets the limits, and when the player ends (by itself, by a limit, or
because the launcher stops it) kills every process the player started, even one that
left its session.  Stopping the guard (cancelling :func:`run_player`) is SIGTERM to its
group, then SIGKILL after a grace period.
"""

from __future__ import annotations

import marshal
import os
import shlex
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from .inner_program import inner_program
from .limits import Limits
from .sandbox import bwrap_argv, require_bwrap

STOP_GRACE_SECONDS = 2.0
STDERR_KEEP = 64 * 1024
SANDBOXES = ("none", "bwrap")
GUARD = Path(__file__).with_name("guard.py")
# The guard is imported by its file's name (stdlib first on the path, its folder last) rather
# than run as a script, so its byte code comes from the cache; -I -S: nothing of the
# environment, no site packages (docs/SANDBOX.md, "Limits").
GUARD_COMMAND = (sys.executable, "-I", "-S", "-c",
                 f"import sys; sys.path.append({str(GUARD.parent)!r}); import guard; "
                 "sys.exit(guard.main())")


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
        """Raises SandboxUnavailableError for bwrap where it is not installed; for bwrap,
        the sandbox's inner program is chosen (and built, the first time on this machine)
        now."""
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"--sandbox {self.sandbox!r}: one of {', '.join(SANDBOXES)}")
        if self.sandbox == "bwrap":
            require_bwrap()
            inner_program()
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
        config.update(argv=bwrap_argv(require_bwrap(), argv, port, scratch, folder,
                                      inner_program()),
                      cwd=None, sandboxed=True, helpers=3)  # bwrap, its init, the inner half
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


ListenerTaker = Callable[[socket.socket], None]


def is_listener_at(sock: socket.socket, port: int) -> bool:
    """A TCP socket listening on 127.0.0.1:``port`` (what the sandbox's inner half makes)."""
    try:
        return (sock.family == socket.AF_INET and sock.type == socket.SOCK_STREAM
                and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 1
                and sock.getsockname() == ("127.0.0.1", port))
    except OSError:
        return False


async def take_listeners(ours: socket.socket, port: int, on_listener: ListenerTaker | None
                         ) -> None:
    """The listening socket the guard hands on from inside the sandbox: to ``on_listener``,
    or closed (then the player's connections are refused)."""
    channel = trio.socket.from_stdlib_socket(ours)
    while True:
        message, ancdata, _, _ = await channel.recvmsg(16, socket.CMSG_SPACE(4))
        if not message:
            return
        for level, kind, data in ancdata:
            if level != socket.SOL_SOCKET or kind != socket.SCM_RIGHTS:
                continue
            for i in range(0, len(data) - 3, 4):
                listener = socket.socket(fileno=int.from_bytes(data[i:i + 4], sys.byteorder))
                if (message == b"listen" and on_listener is not None
                        and is_listener_at(listener, port)):
                    on_listener(listener)
                else:
                    listener.close()


async def run_player(spec: PlayerSpec, host: str, port: int,
                     options: LaunchOptions | None = None, *,
                     stderr_file: Path | None = None,
                     on_listener: ListenerTaker | None = None,
                     task_status: trio.TaskStatus[trio.Process] = trio.TASK_STATUS_IGNORED
                     ) -> PlayerExit:
    """Run one player under its guard to its end (OSError: the guard could not start).

    Under bwrap the player's ``{host}:{port}`` is a listening socket in its sandbox's own
    network namespace: ``on_listener`` gets it (the table's server accepts the player's
    connections on it; no byte passes through another process).  Without ``on_listener``
    it is closed, and the player cannot connect."""
    options = options or LaunchOptions()
    scratch = Path(tempfile.mkdtemp(prefix="daihinmin-scratch-"))
    pair: tuple[socket.socket, socket.socket] | None = None
    try:
        config = guard_config(spec, host, port, options, scratch, stderr_file)
        if options.sandbox == "bwrap":  # the guard hands the sandbox's listener on here
            pair = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            config["server_fd"] = pair[1].fileno()
        env = {**os.environ, "DAIHINMIN_SCRATCH": str(scratch)}
        async with trio.open_nursery() as nursery:
            if pair is not None:
                nursery.start_soon(take_listeners, pair[0], port, on_listener)
            result = await trio.run_process(
                GUARD_COMMAND, check=False,
                stdin=marshal.dumps(config), capture_stdout=True, capture_stderr=True,
                start_new_session=True, deliver_cancel=stop_process_group, env=env,
                pass_fds=(pair[1].fileno(),) if pair else (), task_status=task_status)
            nursery.cancel_scope.cancel()
    finally:
        for end in pair or ():
            end.close()
        shutil.rmtree(scratch, ignore_errors=True)
    try:  # the guard's own report (a player cannot write to the guard's stdout)
        report = marshal.loads(result.stdout)
    except (EOFError, ValueError, TypeError):
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
