"""The guard: one small process between the launcher and one player, outside any sandbox.

Run as ``python -I -S guard.py`` with its config, a JSON object, on stdin (standard library
only, so it starts fast and sees nothing of the caller's environment but what the config
says).  It

* makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``): whatever the player starts,
  even a process that left with ``setsid`` or a double fork, stays its descendant;
* starts the player (or ``bwrap`` around it) with the resource limits set (``setrlimit`` in
  the child): CPU seconds, memory (``RLIMIT_DATA``), open files, file size;
* watches the wall clock and counts the player's processes once a second;
* keeps the last ``stderr_keep`` bytes of the player's stderr (a flood costs no memory) and
  writes them to ``stderr_file`` at the end;
* when the player ends, however it ends, or when the guard is told to stop (SIGTERM, SIGINT,
  SIGHUP, its parent's death, seen within a second), kills every descendant that is left
  and reaps them;
* under ``bwrap``, answers the relay inside the sandbox: each request on the inherited
  ``SOCK_SEQPACKET`` socket gets a fresh TCP connection to the table's server, passed in as a
  file descriptor (``SCM_RIGHTS``), and the relay's last message is the player's wait status;
* prints one JSON line on stdout: the player's exit, CPU and memory use, which limit stopped
  it (if one did) and the end of its stderr.

``daihinmin.launch.process`` starts it; nothing here imports ``daihinmin``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import resource
import selectors
import signal
import socket
import struct
import sys
import time
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
TERM_GRACE = 0.5  # seconds between SIGTERM and SIGKILL for what is left
TAIL_CHARS = 4000  # the end of stderr kept in the report
MIB = 1 << 20
MAX_FD = 1 << 20
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STDERR_MARKS = {  # what a program says when a limit made it fail, by limit
    "memory": (b"MemoryError", b"bad_alloc", b"Cannot allocate memory", b"out of memory",
               b"Out of memory"),
    "open_files": (b"Too many open files",),
    "file_size": (b"File too large", b"File size limit exceeded"),
    "processes": (b"Resource temporarily unavailable", b"fork: retry"),
}


def prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option})")


def children_of() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc (a process that vanished meanwhile is skipped)."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split(None, 2)[1])
        tree.setdefault(ppid, []).append(int(name))
    return tree


def descendants(root: int) -> list[int]:
    tree = children_of()
    out, stack = [], list(tree.get(root, ()))
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(tree.get(pid, ()))
    return out


class Guard:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.limits: dict[str, float] = {k: v for k, v in config.get("limits", {}).items()
                                         if v}
        self.keep = int(config.get("stderr_keep", 65536))
        self.tail = bytearray()
        self.stderr_bytes = 0
        self.limit: str | None = None  # the limit the guard itself enforced
        self.stopped: str | None = None  # a stop signal's name
        self.status: int | None = None  # the player's wait status
        self.usage: tuple[float, float] = (0.0, 0.0)  # CPU seconds, max RSS MiB
        self.killed = 0
        self.selector = selectors.DefaultSelector()
        self.relay: socket.socket | None = None
        self.inner: tuple[int, float, float, int] | None = None  # from the relay, under bwrap
        self.pid = 0
        self.relay_port = int(config.get("relay_port") or 0)

    # --- starting -----------------------------------------------------------------------
    def set_limits(self) -> None:
        """In the child, before exec: the limits (soft = hard, so the player cannot raise
        them; the CPU hard limit one second later, so SIGXCPU comes first)."""
        lim = self.limits
        if "cpu_seconds" in lim:
            soft = max(1, int(lim["cpu_seconds"]))
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
        for key, which, scale in (("memory_mib", resource.RLIMIT_DATA, MIB),
                                  ("open_files", resource.RLIMIT_NOFILE, 1),
                                  ("file_size_mib", resource.RLIMIT_FSIZE, MIB)):
            if key in lim:
                value = int(lim[key] * scale)
                resource.setrlimit(which, (value, value))
        # core files are no use here, and one could be as large as the memory limit
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for sig in (*STOP_SIGNALS, signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())

    def spawn(self, err_w: int, relay_fd: int | None) -> int:
        fd = str(relay_fd)
        argv = [fd if a == "{relay_fd}" else a for a in self.config["argv"]]
        cwd = self.config.get("cwd")
        pid = os.fork()
        if pid == 0:  # the child: nothing but system calls, then exec
            try:
                os.setpgid(0, 0)  # its own group; the guard stays out of it
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(err_w, 2)
                if relay_fd is None:
                    os.closerange(3, MAX_FD)
                else:  # only the relay's socket stays open, for bwrap to pass on
                    os.set_inheritable(relay_fd, True)
                    os.closerange(3, relay_fd)
                    os.closerange(relay_fd + 1, MAX_FD)
                if cwd:
                    os.chdir(cwd)
                self.set_limits()
                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the guard killed: the player too
                os.execvp(argv[0], argv)
            except BaseException as exc:
                os.write(2, f"daihinmin guard: could not start {argv[0]!r}: {exc}\n".encode())
            os._exit(127)
        return pid

    # --- the loop -----------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        with contextlib.suppress(OSError, AttributeError):  # not Linux: the group only
            prctl(PR_SET_CHILD_SUBREAPER, 1)
        # The launcher's death is seen by polling: PR_SET_PDEATHSIG would fire when the
        # *thread* that started the guard ends (Trio starts processes from worker threads).
        launcher = os.getppid()
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        os.set_blocking(wake_r, False)
        signal.set_wakeup_fd(wake_w)
        for sig in (*STOP_SIGNALS, signal.SIGCHLD):
            signal.signal(sig, self.on_signal)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        err_r, err_w = os.pipe()
        relay_fd = None
        if self.config.get("relay_port"):
            self.relay, inner = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            relay_fd = inner.detach()
        try:
            self.pid = self.spawn(err_w, relay_fd)
        finally:
            os.close(err_w)
            if relay_fd is not None:
                os.close(relay_fd)
        started = time.monotonic()
        os.set_blocking(err_r, False)
        self.selector.register(err_r, selectors.EVENT_READ, "stderr")
        self.selector.register(wake_r, selectors.EVENT_READ, "wake")
        if self.relay is not None:
            self.selector.register(self.relay, selectors.EVENT_READ, "relay")
        wall = self.limits.get("wall_seconds")
        next_count = started + 1.0
        while self.status is None and self.stopped is None:
            now = time.monotonic()
            if wall and now - started >= wall:
                self.limit = "wall"
                break
            if now >= next_count:
                next_count = now + 1.0
                if os.getppid() != launcher:
                    self.stopped = "the launcher is gone"
                    break
                if self.over_process_limit():
                    self.limit = "processes"
                    break
            timeout = next_count - now
            if wall:
                timeout = min(timeout, started + wall - now)
            for key, _ in self.selector.select(max(timeout, 0.0)):
                if key.data == "stderr":
                    self.read_stderr(err_r)
                elif key.data == "wake":
                    self.drain(wake_r)
                elif key.data == "relay":
                    self.answer_relay()
            self.reap()
        self.kill_all()
        self.selector.unregister(wake_r)
        if self.relay is not None:
            self.answer_relay()  # the relay's last word: the player's own wait status
            self.close_relay()
        deadline = time.monotonic() + 1.0  # every writer is gone; an fd passed away is not
        while time.monotonic() < deadline and self.selector.select(deadline - time.monotonic()):
            if not self.read_stderr(err_r):
                break
        return self.report()

    def on_signal(self, signum: int, frame: object) -> None:
        if signum != signal.SIGCHLD:
            self.stopped = signal.Signals(signum).name

    @staticmethod
    def drain(fd: int) -> None:
        try:
            while os.read(fd, 512):
                pass
        except BlockingIOError:
            pass

    def read_stderr(self, fd: int) -> bool:
        """Keep the end of what comes; False at the end of the stream."""
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not data:
            return False
        self.stderr_bytes += len(data)
        self.tail += data
        if len(self.tail) > self.keep:
            del self.tail[:len(self.tail) - self.keep]
        return True

    def reap(self) -> None:
        """Reap every child that ended; the player's own status is kept."""
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.pid:
                self.status = status
                self.usage = (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)

    def over_process_limit(self) -> bool:
        limit = self.limits.get("processes")
        if not limit:
            return False
        helpers = int(self.config.get("helpers", 0))  # bwrap and the relay, if sandboxed
        return len(descendants(os.getpid())) > limit + helpers

    def answer_relay(self) -> None:
        """A request for a connection to the table's server, or the player's exit."""
        while self.relay is not None:
            try:
                message = self.relay.recv(64, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                message = b""
            if not message:  # the relay is gone
                self.close_relay()
                return
            if message.startswith(b"exit "):
                status, cpu, rss, left = message[5:].split()
                self.inner = (int(status), float(cpu), float(rss), int(left))
            elif message == b"connect":
                self.connect_for_relay()

    def close_relay(self) -> None:
        if self.relay is not None:
            if self.relay.fileno() in self.selector.get_map():
                self.selector.unregister(self.relay)
            self.relay.close()
            self.relay = None

    def connect_for_relay(self) -> None:
        assert self.relay is not None
        port = int(self.config["relay_port"])
        try:
            conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            self.relay.send(b"refused")
            return
        with conn:
            self.relay.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                          struct.pack("i", conn.fileno()))])

    # --- the end ------------------------------------------------------------------------
    def kill_all(self) -> None:
        """Every descendant: SIGTERM if the player is still running (a chance to leave
        cleanly), then SIGKILL until none is left; every one reaped."""
        me = os.getpid()
        if self.status is None and self.limit is None:
            for pid in descendants(me):
                self.signal(pid, signal.SIGTERM)
            deadline = time.monotonic() + TERM_GRACE
            while time.monotonic() < deadline:
                self.reap()
                if not descendants(me):
                    break
                time.sleep(0.02)
        seen: set[int] = set()
        while True:
            left = descendants(me)
            if not left:
                break
            for pid in left:
                if pid != self.pid and pid not in seen:
                    seen.add(pid)
                    self.killed += 1
                self.signal(pid, signal.SIGKILL)
            time.sleep(0.005)
            self.reap()
        self.reap()

    @staticmethod
    def signal(pid: int, sig: int) -> None:
        try:
            os.kill(pid, sig)
        except OSError as exc:
            if exc.errno != errno.ESRCH:
                raise

    def report(self) -> dict[str, Any]:
        inner = self.inner  # under bwrap: the player's own status, from inside
        status = inner[0] if inner is not None else self.status
        cpu, rss = (inner[1], inner[2]) if inner is not None else self.usage
        if self.relay_port:  # the sandbox's own processes are no leftovers of the player
            self.killed = inner[3] if inner is not None else 0
        code = None
        if status is not None:
            code = os.waitstatus_to_exitcode(status)
        tail = bytes(self.tail)
        limit = self.limit or self.which_limit(code, cpu, rss, tail)
        stderr_file = self.config.get("stderr_file") if tail else None  # only if it spoke
        if stderr_file:
            try:
                fd = os.open(stderr_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                with os.fdopen(fd, "wb") as f:
                    f.write(tail)
            except OSError:
                stderr_file = None
        return {"returncode": code, "stopped": self.stopped, "limit": limit,
                "cpu_seconds": round(cpu, 3), "max_rss_mib": round(rss, 1),
                "left_behind": self.killed, "stderr_bytes": self.stderr_bytes,
                "stderr_file": stderr_file,
                "stderr_tail": tail[-TAIL_CHARS:].decode("utf-8", "replace")}

    def which_limit(self, code: int | None, cpu: float, rss: float, tail: bytes
                    ) -> str | None:
        """The limit that stopped a player that failed, as far as the signs tell."""
        if code is None or code == 0 or self.stopped:
            return None
        lim = self.limits
        if "cpu_seconds" in lim and (code in (-signal.SIGXCPU, 128 + signal.SIGXCPU) or (
                code == -signal.SIGKILL and cpu >= 0.95 * lim["cpu_seconds"])):
            return "cpu"  # SIGXCPU comes from the soft limit only; SIGKILL at the hard one
        if code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ) and "file_size_mib" in lim:
            return "file_size"  # (128 + the signal: as a shell reports its child's)
        end = tail[-4096:]
        for key, marks in STDERR_MARKS.items():
            limit_key = {"memory": "memory_mib", "open_files": "open_files",
                         "file_size": "file_size_mib", "processes": "processes"}[key]
            if limit_key in lim and any(m in end for m in marks):
                return key
        if "memory_mib" in lim and rss >= 0.9 * lim["memory_mib"]:
            return "memory"
        return None


def main() -> int:
    config = json.loads(sys.stdin.buffer.read())  # not in argv: ps shows the player once
    report = Guard(config).run()
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
