"""A player that attacks the platform first, then (if it is still alive) plays as the
bundled ``default`` bot.  ``attack_bot.py MODE ARG HOST PORT``; what it tried and what
happened goes to stderr (the test reads the kept end of it).  A breach exits 66 at once.
"""

import os
import socket
import subprocess
import sys
import time


def breach(what: str) -> None:
    print(f"BREACH: {what}", file=sys.stderr, flush=True)
    sys.exit(66)


def denied(what: str, exc: BaseException) -> None:
    print(f"denied: {what}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


def attack(mode: str, arg: str) -> None:
    if mode == "memory":  # past the memory limit
        blocks = [bytearray(16 << 20) for _ in range(256)]
        breach(f"allocated {len(blocks) * 16} MiB")
    elif mode == "cpu":  # spin past the CPU limit
        while True:
            pass
    elif mode == "fork":  # a child that sleeps forever, and one that left with setsid
        for argv in (["sleep", "7391.5"], ["setsid", "sleep", "7392.5"]):
            child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
            with open(os.path.join(arg, f"{argv[-1]}.pid"), "w") as f:
                f.write(str(child.pid))
        time.sleep(0.2)
    elif mode == "fsize":  # a file bigger than the file size limit
        with open(os.path.join(arg, "big.bin"), "wb") as f:
            for _ in range(64):
                f.write(b"\0" * (1 << 20))
        breach("wrote 64 MiB")
    elif mode == "flood":  # stderr flood
        chunk = b"x" * (1 << 20)
        for _ in range(int(arg)):
            os.write(2, chunk)
    elif mode == "write":  # a file outside its folder
        try:
            with open(arg, "w") as f:
                f.write("pwned")
            breach(f"wrote {arg}")
        except OSError as exc:
            denied(f"write {arg}", exc)
    elif mode == "read":  # another submission's folder or the results database
        for path in arg.split(","):
            try:
                with open(path, "rb") as f:
                    f.read(64)
                breach(f"read {path}")
            except OSError as exc:
                denied(f"read {path}", exc)
    elif mode == "ptrace":  # take over its parent, the sandbox's inner half (and its socket)
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        parent = os.getppid()
        if libc.ptrace(16, parent, 0, 0) == 0:  # PTRACE_ATTACH
            breach(f"traced its parent {parent}")
        code = ctypes.get_errno()
        denied(f"ptrace {parent}", OSError(code, os.strerror(code)))
    elif mode == "parent":  # say what started it
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            words = f.read().decode().split("\0")
        print("parent:", " ".join(words[:4]), file=sys.stderr, flush=True)
    elif mode == "connect":  # another loopback port than its server's
        try:
            socket.create_connection(("127.0.0.1", int(arg)), timeout=5).close()
            breach(f"connected to 127.0.0.1:{arg}")
        except OSError as exc:
            denied(f"connect 127.0.0.1:{arg}", exc)


def main() -> None:
    mode, arg, host, port = sys.argv[1:5]
    attack(mode, arg)
    os.execv(sys.executable, [sys.executable, "-m", "daihinmin.tools", "bot", "default",
                              "--host", host, "--port", port])


if __name__ == "__main__":
    main()
