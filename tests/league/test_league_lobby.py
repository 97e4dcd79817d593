"""Entrants who run their own client: a real league, its lobby on 127.0.0.1, and lobby
clients as separate processes (``python -m daihinmin.league.lobby_client``).

A client with its secret is seated and plays; one with a wrong secret is refused; one that is
sent to its table and never connects is a fault on its own record (its matches count for
nobody) and is suspended after ``crash_limit`` such matches.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from league_run import WAIT, query, stop, wait_for


def client(port: int, name: str, secret: str, *command: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "daihinmin.league.lobby_client", "--lobby",
                             f"127.0.0.1:{port}", "--name", name, "--secret", secret, "--",
                             *command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def test_lobby_clients_are_seated_and_one_that_never_comes_is_a_fault(tmp_path: Path) -> None:
    (tmp_path / "league.toml").write_text(
        'house = ["random", "weakest"]\nlobby = ["good", "flaky"]\nlobby_port = 0\n'
        "games_per_match = 2\ntables = 1\ncrash_limit = 2\nmove_time = 3.0\n"
        "profile_time = 10.0\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    league = subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "league",
                               str(tmp_path / "league.toml")], stdout=out.open("w"),
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    clients: list[subprocess.Popen[str]] = []
    db = tmp_path / "league.sqlite"
    try:
        text = wait_for("the lobby's port", lambda: (t := out.read_text()) and
                        "lobby: 127.0.0.1:" in t and t, league)
        port = int(re.search(r"lobby: 127\.0\.0\.1:(\d+)", text).group(1))  # type: ignore[union-attr]
        secret = dict(re.findall(r"lobby entrant (\w+): its secret is (\S+)", text))
        assert set(secret) == {"good", "flaky"}
        assert (tmp_path / "league.sqlite.lobby-secrets").stat().st_mode & 0o077 == 0

        intruder = client(port, "good", "not-the-secret", sys.executable, "-c", "pass")
        assert intruder.wait(60) == 2
        assert "wrong secret" in (intruder.stdout.read() if intruder.stdout else "")

        bot = [sys.executable, "-m", "daihinmin.tools.botproc", "default", "-q", "--host",
               "{host}", "--port", "{port}", "--name", "good"]
        clients.append(client(port, "good", secret["good"], *bot))
        clients.append(client(port, "flaky", secret["flaky"], sys.executable, "-c", "pass"))
        good = query(db, "SELECT id FROM entrants WHERE name = 'good'")[0][0]
        flaky = query(db, "SELECT id FROM entrants WHERE name = 'flaky'")[0][0]
        wait_for("flaky suspended", lambda: query(
            db, "SELECT 1 FROM entrants WHERE id = ? AND status = 'suspended'", flaky), league)
        assert clients[1].wait(60) == 2  # the lobby refuses a suspended entrant
        wait_for("good's matches", lambda: query(
            db, "SELECT COUNT(*) FROM matches m WHERE status = 'done' AND EXISTS (SELECT 1"
                " FROM json_each(m.lineup) WHERE value = ?)", good)[0][0] >= 2, league)
    finally:
        for c in clients:
            if c.poll() is None:
                os.killpg(c.pid, signal.SIGKILL)
        if league.poll() is None:
            os.killpg(league.pid, signal.SIGTERM)
            league.wait(WAIT)
        stop(league)
    assert query(db, "SELECT COUNT(*) FROM results WHERE entrant = ?", flaky) == [(0,)]
    assert query(db, "SELECT COUNT(*) FROM faults WHERE entrant = ? AND stand_in IS NOT NULL",
                 flaky)[0][0] >= 2
    assert query(db, "SELECT COUNT(*) FROM faults WHERE entrant = ?", good) == [(0,)]
    assert query(db, "SELECT COUNT(*) FROM results WHERE entrant = ?", good)[0][0] >= 4
    assert "Traceback" not in out.read_text()
    back = subprocess.run([sys.executable, "-m", "daihinmin.tools", "league",
                           str(tmp_path / "league.toml"), "--reinstate", "flaky"],
                          capture_output=True, text=True, timeout=WAIT)
    assert back.returncode == 0, back.stderr
    assert query(db, "SELECT status, reason FROM entrants WHERE id = ?", flaky) == [
        ("active", "reinstated by the host")]
