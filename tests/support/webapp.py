"""A real ``daihinmin web`` process on 127.0.0.1 (port 0) for the web tests: its address, the
publish address with its token, and the process (to read its stderr when it ends)."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass
class WebProcess:
    base: str  # http://127.0.0.1:PORT
    publish: str  # http://127.0.0.1:PORT/?token=T
    proc: subprocess.Popen[str]
    stderr: Path

    @property
    def ws(self) -> str:
        return "ws://" + self.base[len("http://"):]

    @property
    def token(self) -> str:
        return self.publish.rsplit("token=", 1)[1]


@contextlib.contextmanager
def web_process(folder: Path, *flags: str) -> Iterator[WebProcess]:
    """Run ``daihinmin web --port 0 --cpu-delay 0 FLAGS`` until the block ends; its stderr
    must hold no traceback then."""
    stderr = folder / "web-stderr.txt"
    with stderr.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "web", "--port", "0",
                                 "--cpu-delay", "0", *flags],
                                stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        assert proc.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
        assert found, stderr.read_text()
        publish = re.search(r"--publish '([^']+)'", proc.stdout.readline())
        assert publish, stderr.read_text()
        yield WebProcess(found.group(1), publish.group(1), proc, stderr)
    finally:
        proc.terminate()
        proc.wait(10)
    assert "Traceback" not in stderr.read_text(), stderr.read_text()
