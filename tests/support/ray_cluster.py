"""A real Ray cluster for tests, inside a private network namespace that has only loopback.

Ray left to itself looks up its own address towards a public resolver and may bind or
connect over the machine's outward interface; in a namespace made by ``unshare --net`` (root
only) there is nothing but ``lo``, so nothing of the cluster can reach or listen on anything
else.  A holder process keeps the namespace; the head node, a second node, the drivers (the
``daihinmin`` commands under test) and their bot processes all run in it through ``nsenter``.
Teardown ends exactly the processes in that namespace, by their ids (never ``ray stop``,
which would end every Ray process of the machine by name).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HEAD_PORT = 6379  # free: the namespace is new
RAY = str(Path(sys.executable).with_name("ray"))
# Token authentication, one token for the cluster and its drivers (as docs/CLUSTER.md says).
ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
       "RAY_AUTH_TOKEN": secrets.token_hex(32)}
START_TIMEOUT = 240.0  # `ray start` on a busy 2-core machine


def can_unshare() -> str | None:
    """Why no namespace can be made here (None: it can)."""
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return "unshare/nsenter (util-linux) are missing"
    if shutil.which("ip") is None:
        return "ip (iproute2) is missing"
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
    if probe.returncode != 0:
        return f"unshare --net is not allowed here: {probe.stderr.decode().strip()}"
    return None


class LoopbackCluster:
    """``nodes`` Ray nodes of ``cpus`` CPUs each, in a fresh loopback-only namespace."""

    def __init__(self, nodes: int = 2, cpus: int = 1) -> None:
        self.temp = tempfile.mkdtemp(prefix="dh-ray-", dir="/tmp")  # short: socket paths
        self.holder = subprocess.Popen(
            ["unshare", "--net", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"],
            stdout=subprocess.PIPE, text=True)
        assert self.holder.stdout is not None
        assert self.holder.stdout.readline().strip() == "up"
        self.netns = os.readlink(f"/proc/{self.holder.pid}/ns/net")
        self.address = f"127.0.0.1:{HEAD_PORT}"
        try:
            self.ray_start("--head", "--port", str(HEAD_PORT), "--include-dashboard=false",
                           "--disable-usage-stats", "--temp-dir", self.temp,
                           "--min-worker-port", "20000", "--max-worker-port", "20999",
                           "--num-cpus", str(cpus))
            for n in range(1, nodes):
                low = 20000 + 1000 * n
                self.ray_start("--address", self.address, "--num-cpus", str(cpus),
                               "--min-worker-port", str(low), "--max-worker-port",
                               str(low + 999))
        except BaseException:
            self.stop()
            raise

    def ray_start(self, *args: str) -> None:
        proc = self.run([RAY, "start", "--node-ip-address", "127.0.0.1", *args],
                        timeout=START_TIMEOUT)
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["nsenter", f"--net=/proc/{self.holder.pid}/ns/net", "--", *argv]

    def run(self, argv: Sequence[str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(argv), capture_output=True, text=True,
                              timeout=timeout, env=ENV)

    def popen(self, argv: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes]:
        return subprocess.Popen(self.command(argv), env=ENV, **kwargs)  # type: ignore[call-overload]

    def sockets(self) -> list[str]:
        """Every TCP and UDP socket of the namespace, as ``ss`` shows them (no header)."""
        return self.run(["ss", "-Htuan"], timeout=60).stdout.splitlines()

    def pids(self) -> list[int]:
        """The processes in the namespace (the cluster, the drivers, their bots)."""
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/ns/net") == self.netns:
                        out.append(int(entry))
        return out

    def task_workers(self, title: str) -> list[int]:
        """Ray workers running a task of that function now (``ray::NAME`` process title)."""
        found = []
        for pid in self.pids():
            with contextlib.suppress(OSError):
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                if cmdline.startswith(f"ray::{title}".encode()):
                    found.append(pid)
        return found

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            pids = [p for p in self.pids() if p != self.holder.pid]
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and any(p != self.holder.pid
                                                      for p in self.pids()):
                time.sleep(0.2)
        self.holder.kill()
        self.holder.wait()
        if self.holder.stdout is not None:
            self.holder.stdout.close()
        shutil.rmtree(self.temp, ignore_errors=True)


def loopback_only(lines: list[str]) -> list[str]:
    """The ``ss -Htuan`` lines with an address that is not loopback (a listener's peer may be
    the wildcard ``*``/``0.0.0.0``; its own address may not)."""
    bad = []
    for line in lines:
        fields = line.split()
        local, peer = fields[4], fields[5]
        if not is_loopback(local) or not (is_loopback(peer) or peer.split(":")[0] in
                                          ("*", "0.0.0.0", "[::]")):
            bad.append(line)
    return bad


def is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].split("%")[0].strip("[]")
    if host.startswith("::ffff:"):
        host = host[len("::ffff:"):]
    return host.startswith("127.") or host == "::1"
