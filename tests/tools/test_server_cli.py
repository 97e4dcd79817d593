"""``daihinmin serve`` as its own process: it announces its port, seats players, reports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from probe import ProbePlayer


def test_serve_plays_a_match_for_five_connected_players(tmp_path: Path) -> None:
    log_path = tmp_path / "serve.jsonl"
    server = subprocess.Popen(
        [sys.executable, "-m", "daihinmin.tools", "serve", "--port", "0", "--games", "3",
         "--seed", "8", "--json", "--log", str(log_path), "--coalesce"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        assert match, line
        port = int(match.group(1))
        players = [ProbePlayer("127.0.0.1", port, f"cli{i}", seed=i, timeout=60)
                   for i in range(5)]
        errors: list[BaseException] = []

        def play(p: ProbePlayer) -> None:
            try:
                p.run()
            except BaseException as exc:
                errors.append(exc)

        threads = []
        for p in players:  # seat them in order, then let them all play
            p.connect()
            p.handshake()
            threads.append(threading.Thread(target=play, args=(p,)))
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        out, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert not errors
    assert server.returncode == 0, err
    report = json.loads(out)
    assert report["games"] == 3 and report["seed"] == 8
    assert [p["name"] for p in report["players"]] == [f"cli{i}" for i in range(5)]
    assert "game 3" not in err  # --json: only the listening line on stderr
    log = read_match_log(log_path)
    assert log.header.write_mode == "coalesced" and verify_log(log).complete


def test_serve_refuses_bad_options(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "serve", "--port", "0",
                           "--rule", "players=7", "--rule", "points=7,6,5,4,3,2,1",
                           "--no-log"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "players must be 3..6" in done.stderr
