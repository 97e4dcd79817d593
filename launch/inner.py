"""The guard's inner half: the first process in a player's sandbox (``inner.c`` in Python).

``inner.c``, compiled once per machine, runs where there is a C compiler; this is its
fallback (:mod:`daihinmin.launch.inner_program` chooses), the same steps at a slower start.
Run by ``bwrap`` as ``python -I -S inner.py FD PORT -- PLAYER...`` in a network namespace of
its own, where nothing but the sandbox's loopback exists, it

1. listens on ``127.0.0.1:PORT`` there (the real server's port, so the player's
   ``{host}:{port}`` is an ordinary TCP address) and passes the listening socket out to the
   guard over the inherited ``SOCK_SEQPACKET`` socket ``FD`` (``listen`` + ``SCM_RIGHTS``);
   the guard hands it to the table's server, which accepts the player's connections on it
   itself.  A socket stays in the namespace it was made in, so the player reaches that
   server and nothing else, and no byte of the game passes through this process;
2. starts the player and waits for it;
3. sends ``exit STATUS CPU RSS LEFT`` to the guard (the player's wait status, CPU seconds,
   peak memory in MiB, and how many processes are left in the sandbox: the PID namespace
   ends them all when this process ends) and exits with the player's code.

Standard library only; only modules written in C, so that it starts fast.
"""

from __future__ import annotations

import os
import resource
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    import socket
else:  # the C modules: ``signal`` and ``socket`` would import enum (and more)
    import _signal as signal
    import _socket as socket

PR_SET_DUMPABLE = 4
BACKLOG = 16


def not_dumpable() -> None:
    """The player (the same user, and its child) can neither ptrace this process nor take
    its socket to the guard (``pidfd_getfd``) to forge the report."""
    try:
        import _ctypes

        # dlopen(None): this program and its libraries (as ctypes.CDLL(None))
        prctl = _ctypes.dlsym(_ctypes.dlopen(None), "prctl")  # type: ignore[arg-type]
        _ctypes.call_function(prctl, (PR_SET_DUMPABLE, 0, 0, 0, 0))
    except (ImportError, AttributeError, OSError):
        import ctypes

        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def main() -> int:
    not_dumpable()
    guard = socket.socket(fileno=int(sys.argv[1]))
    port = int(sys.argv[2])
    argv = sys.argv[4:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(BACKLOG)
    guard.sendmsg([b"listen"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                 listener.fileno().to_bytes(4, sys.byteorder))])
    listener.close()  # the server's copy is the only one: when it closes, so does the port
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        os.closerange(3, 1 << 20)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"daihinmin: could not start {argv[0]!r}: {exc}\n".encode())
        os._exit(127)
    _, status = os.waitpid(pid, 0)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # the player, reaped above
    # What the player left running: every process of the namespace but its init and this
    # one (they all die with the init when this one exits).
    left = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    guard.send(f"exit {status} {ru.ru_utime + ru.ru_stime:.3f} {ru.ru_maxrss / 1024:.1f} "
               f"{len(left)}".encode())
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
