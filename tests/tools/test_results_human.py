"""``daihinmin bot human`` against ``daihinmin serve`` (real processes over loopback TCP): the
seat says a person plays it and gets no move deadline, so the person's slow first answer is
not a timeout; with ``--no-human-seats`` it is, and the person is told what to do."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest

pytestmark = pytest.mark.timeout(120)

CLI = [sys.executable, "-m", "daihinmin.tools"]
TIGHT = ["--move-time", "0.3", "--exchange-time", "0.3", "--time-bank", "0"]


def serve(*extra: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([*CLI, "serve", "--port", "0", "--games", "1", "--seed", "3",
                             "--no-log", "--json", *TIGHT, *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    port = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert port is not None, line
    return proc, int(port.group(1))


def slow_person(proc: subprocess.Popen[bytes], think: float, seen: list[bytes],
                seated: threading.Event) -> None:
    """Says when the screen shows the player number (``seated``), waits for the first move
    prompt, thinks ``think`` seconds, then always picks move 1; reads the screen to its end."""
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    while b"Your move" not in b"".join(seen):
        chunk = os.read(fd, 65536)
        if not chunk:
            seated.set()  # (it never will be: let the test go on and fail)
            return
        seen.append(chunk)
        if b"You are player" in b"".join(seen):
            seated.set()
    time.sleep(think)
    try:
        proc.stdin.write(b"1\n" * 400)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    while chunk := os.read(fd, 65536):
        seen.append(chunk)


def play(*serve_flags: str) -> tuple[subprocess.CompletedProcess[str], dict, str]:
    server, port = serve(*serve_flags)
    human = subprocess.Popen([*CLI, "bot", "human", "--port", str(port)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    screen: list[bytes] = []
    seated = threading.Event()
    thinker = threading.Thread(target=slow_person, args=(human, 1.5, screen, seated))
    thinker.start()
    assert seated.wait(60)  # the person is player 0 before the bots connect
    bots = [subprocess.Popen([*CLI, "bot", "default", "--port", str(port), "-q"])
            for _ in range(4)]
    out, err = server.communicate(timeout=90)
    human.wait(timeout=30)
    thinker.join(timeout=30)
    assert human.stderr is not None
    human_err = human.stderr.read().decode()
    for bot in bots:
        bot.wait(timeout=30)
    done = subprocess.CompletedProcess(server.args, server.returncode, out, err)
    return done, json.loads(out), human_err


def test_a_person_gets_no_move_deadline_on_serve() -> None:
    done, report, human_err = play()
    assert done.returncode == 0, done.stderr
    me = next(p for p in report["players"] if p["number"] == 0)
    # It thought 1.5 s on a 0.3 s deadline without a time bank, and was not timed out.
    assert me["name"] == "human" and me["status"] == "OK" and not me["faults"]
    assert me["own_games"] == 1 and human_err == ""


def test_without_human_seats_the_person_is_told_what_to_do() -> None:
    done, report, human_err = play("--no-human-seats", "--fault-limit", "1")
    assert done.returncode == 3, done.stderr  # a stand-in played the person's seat
    me = next(p for p in report["players"] if p["number"] == 0)
    assert me["status"] == "TIMEOUT" and me["stand_in"] == "fallback"
    assert "--no-human-seats" in human_err and "Traceback" not in human_err
