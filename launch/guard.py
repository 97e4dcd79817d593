"""The guard: one small process between the launcher and one player, outside any sandbox.

Run as ``python -I -S -c "..."`` (see :data:`daihinmin.launch.process.GUARD_COMMAND`: it
imports this file by its name, so its byte code is cached) with its config, a dict in
:mod:`marshal` form, on stdin.  It is started for every player, so it starts fast: only
modules built into the interpreter or written in C (``_signal``, ``select``, ``_socket``,
``resource``, ``marshal``), no ``json``, ``typing``, ``ctypes`` or ``daihinmin``.  It

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
* under ``bwrap``, talks with its inner half inside the sandbox (:mod:`daihinmin.launch.inner`)
  over an inherited ``SOCK_SEQPACKET`` socket: the listening socket that the inner half makes
  in the sandbox's network namespace is handed on (``SCM_RIGHTS``) over ``server_fd`` to the
  launcher, for the table's server to accept the player on, and the inner half's last
  message is the player's own wait status;
* prints its report (a dict in :mod:`marshal` form) on stdout: the player's exit, CPU and
  memory use, which limit stopped it (if one did) and the end of its stderr.

``daihinmin.launch.process`` starts it; nothing here imports ``daihinmin``.
"""

from __future__ import annotations

import errno
import marshal
import os
import resource
import select
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs more to import than all the rest
    import signal
    from typing import Any
else:
    import _signal as signal  # the C module: ``signal`` would import enum

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
TERM_GRACE = 0.5  # seconds between SIGTERM and SIGKILL for what is left
TAIL_CHARS = 4000  # the end of stderr kept in the report
MIB = 1 << 20
MAX_FD = 1 << 20
STOP_SIGNALS: dict[int, str] = {signal.SIGTERM: "SIGTERM", signal.SIGINT: "SIGINT",
                                signal.SIGHUP: "SIGHUP"}
STDERR_MARKS = {  # what a program says when a limit made it fail, by limit
    "memory": (b"MemoryError", b"bad_alloc", b"Cannot allocate memory", b"out of memory",
               b"Out of memory"),
    "open_files": (b"Too many open files",),
    "file_size": (b"File too large", b"File size limit exceeded"),
    "processes": (b"Resource temporarily unavailable", b"fork: retry"),
}


def prctl(option: int, value: int) -> None:
    """``prctl(option, value)`` through ``_ctypes`` alone (``ctypes`` takes longer to import
    than the rest of the guard); ``ctypes`` where that private API is missing."""
    try:
        import _ctypes

        # dlopen(None): this program and its libraries (as ctypes.CDLL(None))
        function = _ctypes.dlsym(_ctypes.dlopen(None), "prctl")  # type: ignore[arg-type]
        result = _ctypes.call_function(function, (option, value, 0, 0, 0))
    except (ImportError, AttributeError, OSError):
        import ctypes

        result = ctypes.CDLL(None).prctl(option, value, 0, 0, 0)
    if result != 0:
        raise OSError(f"prctl({option}, {value}) failed")


def children_of() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc (a process that vanished meanwhile is skipped)."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:  # (plain system calls: this runs over every process of the machine)
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
            try:
                stat = os.read(fd, 4096)
            finally:
                os.close(fd)
        except OSError:
            continue
        if b")" not in stat:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split(None, 2)[1])
        tree.setdefault(ppid, []).append(int(name))
    return tree


def find_program(name: str) -> str:
    """``name`` on the PATH, as execvp would find it (which imports ``warnings``, in the
    child, for every player); ``name`` itself when not found (exec then says why)."""
    if "/" in name:
        return name
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(folder or ".", name)
        if os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    return name


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
        self.poller = select.poll()
        self.sandboxed = bool(config.get("sandboxed"))
        self.inner: Any = None  # under bwrap, a _socket.socket (SOCK_SEQPACKET) to the inside
        self.inner_exit: tuple[int, float, float, int] | None = None  # the inside's report
        self.server_fd: int | None = config.get("server_fd")  # where listeners go
        self.pid = 0

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

    def spawn(self, err_w: int, inner_fd: int | None) -> int:
        fd = str(inner_fd)
        argv = [fd if a == "{inner_fd}" else a for a in self.config["argv"]]
        cwd = self.config.get("cwd")
        program = find_program(argv[0])
        pid = os.fork()
        if pid == 0:  # the child: nothing but system calls, then exec
            try:
                os.setpgid(0, 0)  # its own group; the guard stays out of it
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(err_w, 2)
                if inner_fd is None:
                    os.closerange(3, MAX_FD)
                else:  # only the inner half's socket stays open, for bwrap to pass on
                    os.set_inheritable(inner_fd, True)
                    os.closerange(3, inner_fd)
                    os.closerange(inner_fd + 1, MAX_FD)
                if cwd:
                    os.chdir(cwd)
                self.set_limits()
                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the guard killed: the player too
                os.execv(program, argv)
            except BaseException as exc:
                os.write(2, f"daihinmin guard: could not start {argv[0]!r}: {exc}\n".encode())
            os._exit(127)
        return pid

    # --- the loop -----------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        try:
            prctl(PR_SET_CHILD_SUBREAPER, 1)
            # not dumpable: the player (the same user) cannot ptrace the guard to change
            # its report; the player's own exec makes it dumpable again
            prctl(PR_SET_DUMPABLE, 0)
        except (OSError, AttributeError):  # not Linux: the group only
            pass
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
        inner_fd = None
        if self.sandboxed:
            import _socket

            self.inner, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_SEQPACKET)
            inner_fd = theirs.detach()
        try:
            self.pid = self.spawn(err_w, inner_fd)
        finally:
            os.close(err_w)
            if inner_fd is not None:
                os.close(inner_fd)
        started = time.monotonic()
        os.set_blocking(err_r, False)
        self.poller.register(err_r, select.POLLIN)
        self.poller.register(wake_r, select.POLLIN)
        if self.inner is not None:
            self.poller.register(self.inner.fileno(), select.POLLIN)
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
            for fd, _ in self.poll(timeout):
                if fd == err_r:
                    if not self.read_stderr(err_r):  # closed: no more to wait for
                        self.poller.unregister(err_r)
                        err_r = -1
                elif fd == wake_r:
                    self.drain(wake_r)
                else:
                    self.answer_inner()
            self.reap()
        self.kill_all()
        self.poller.unregister(wake_r)
        if self.inner is not None:
            self.answer_inner()  # the inner half's last word: the player's own wait status
            self.close_inner()
        deadline = time.monotonic() + 1.0  # every writer is gone; an fd passed away is not
        while err_r >= 0 and time.monotonic() < deadline and self.poll(
                deadline - time.monotonic()):
            if not self.read_stderr(err_r):
                break
        return self.report()

    def poll(self, seconds: float) -> list[tuple[int, int]]:
        return self.poller.poll(max(0, int(seconds * 1000 + 0.999)))

    def on_signal(self, signum: int, frame: object) -> None:
        if signum != signal.SIGCHLD:
            self.stopped = STOP_SIGNALS.get(signum, f"signal {signum}")

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

    def reap(self) -> bool:
        """Reap every child that ended; the player's own status is kept.  False when no
        child is left at all (and so, the guard being a subreaper, no descendant)."""
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.pid:
                self.status = status
                self.usage = (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)

    def over_process_limit(self) -> bool:
        limit = self.limits.get("processes")
        if not limit:
            return False
        helpers = int(self.config.get("helpers", 0))  # bwrap and the inner half, if any
        return len(descendants(os.getpid())) > limit + helpers

    def answer_inner(self) -> None:
        """The inner half's messages: its listening socket (handed on to the launcher) and,
        last, the player's exit."""
        import _socket  # imported already (the inner half's socket is one)

        while self.inner is not None:
            try:
                message, ancdata, _, _ = self.inner.recvmsg(
                    64, _socket.CMSG_SPACE(4), _socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                message, ancdata = b"", []
            fds = [int.from_bytes(data[i:i + 4], sys.byteorder)
                   for level, kind, data in ancdata
                   if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS
                   for i in range(0, len(data) - 3, 4)]
            if message == b"listen" and fds:
                self.hand_on(fds[0])
            for fd in fds:
                os.close(fd)
            if not message:  # the inner half is gone
                self.close_inner()
                return
            if message.startswith(b"exit "):
                try:
                    status, cpu, rss, left = message[5:].split()
                    self.inner_exit = (int(status), float(cpu), float(rss), int(left))
                except ValueError:  # not its report: the guard's own view stands
                    pass

    def hand_on(self, listener: int) -> None:
        """The sandbox's listening socket, to the launcher (for the table's server); with
        nobody to take it, it is closed and the player's connections are refused."""
        if self.server_fd is None:
            return
        import _socket

        launcher = _socket.socket(fileno=self.server_fd)
        try:
            launcher.sendmsg([b"listen"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS,
                                            listener.to_bytes(4, sys.byteorder))])
        except OSError:  # the launcher is gone
            pass
        finally:
            launcher.detach()  # the fd stays the guard's (one listener per sandbox)

    def close_inner(self) -> None:
        if self.inner is not None:
            self.poller.unregister(self.inner.fileno())  # registered while it is open
            self.inner.close()
            self.inner = None

    # --- the end ------------------------------------------------------------------------
    def kill_all(self) -> None:
        """Every descendant: SIGTERM if the player is still running (a chance to leave
        cleanly), then SIGKILL until none is left; every one reaped."""
        if not self.reap():
            return  # no child, so no descendant: nothing to look for in /proc
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
        inner = self.inner_exit  # under bwrap: the player's own status, from inside
        status = inner[0] if inner is not None else self.status
        cpu, rss = (inner[1], inner[2]) if inner is not None else self.usage
        if self.sandboxed:  # the sandbox's own processes are no leftovers of the player
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
    config = marshal.loads(sys.stdin.buffer.read())  # not in argv: ps shows the player once
    report = Guard(config).run()
    sys.stdout.buffer.write(marshal.dumps(report))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
