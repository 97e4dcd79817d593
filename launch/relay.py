"""The relay: inside the sandbox, the only way out to the table's server.

Run by ``bwrap`` as ``python -I -S relay.py FD PORT -- PLAYER...`` (standard library only) in
a network namespace of its own, where nothing but the sandbox's loopback exists.  It listens
on ``127.0.0.1:PORT`` there (the port of the real server, so the player's ``{host}:{port}``
is an ordinary TCP address), starts the player, and for each connection the player makes
asks the guard outside, over the inherited ``SOCK_SEQPACKET`` socket ``FD``, for a
connection to the server: the guard connects on the host's loopback and passes the socket in
(``SCM_RIGHTS``).  The relay then copies bytes both ways.  The guard connects only to its
table's port, so nothing else is reachable.  When the player ends, the relay sends the
player's wait status, CPU seconds, peak memory and the number of processes it left running (the
PID namespace ends them all) to the guard and exits with its code.
"""

from __future__ import annotations

import array
import os
import resource
import selectors
import signal
import socket
import sys

CHUNK = 65536


def ask_for_server(guard: socket.socket) -> socket.socket | None:
    guard.send(b"connect")
    fds = array.array("i")
    message, ancdata, _, _ = guard.recvmsg(16, socket.CMSG_SPACE(fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:fds.itemsize])
    if message != b"fd" or not fds:
        return None
    return socket.socket(fileno=fds[0])


def main() -> int:
    guard = socket.socket(fileno=int(sys.argv[1]))
    guard.set_inheritable(False)
    port = int(sys.argv[2])
    argv = sys.argv[4:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(8)
    listener.setblocking(False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.closerange(3, 1 << 20)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"daihinmin: could not start {argv[0]!r}: {exc}\n".encode())
        os._exit(127)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, None)
    sel.register(wake_r, selectors.EVENT_READ, None)
    peer: dict[socket.socket, socket.socket] = {}
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        for key, _ in sel.select():
            sock = key.fileobj
            if sock is listener:
                try:
                    player, _ = listener.accept()
                except BlockingIOError:
                    continue
                server = ask_for_server(guard)
                if server is None:
                    player.close()
                    continue
                peer[player], peer[server] = server, player
                for s in (player, server):
                    s.setblocking(True)  # a player that does not read holds up its own
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    sel.register(s, selectors.EVENT_READ, None)
            elif sock == wake_r:
                os.read(wake_r, 512)
            else:
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(CHUNK)
                except OSError:
                    data = b""
                other = peer.get(sock)
                if data and other is not None:
                    try:
                        other.sendall(data)
                        continue
                    except OSError:
                        pass
                for end in (sock, other):  # one side ended: end both
                    if end is not None and end in peer:
                        sel.unregister(end)
                        peer.pop(end)
                        end.close()
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
