"""Helpers of the league tests: read its database as the pages do, wait for what it writes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WAIT = 240.0  # seconds: generous, the CI machine may be busy


def query(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def wait_for(what: str, check: Callable[[], Any], proc: subprocess.Popen[str] | None = None,
             timeout: float = WAIT) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except sqlite3.OperationalError:  # the database is not made yet
            value = None
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the league stopped (code {proc.returncode}) before {what}")
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
