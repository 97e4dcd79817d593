"""The sample clients in ``clients/c`` and ``clients/cpp``: built with the system compiler
(with ``make`` and with the one compiler line their Makefiles name), they play whole matches
against bundled bots, on ``daihinmin match --cmd`` and on ``daihinmin serve``, without a
single rejected move, and no stand-in ever plays their seats."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = {"c": ("cc", ["main.c", "uecda.c", "plays.c", "bot.c"], ["-std=c99"]),
           "cpp": ("c++", ["uecda.cpp", "plays.cpp", "bot.cpp"], ["-std=c++17"])}


def compiler_line(kind: str, out: Path) -> list[str]:
    """The one compiler line the client's Makefile names, warnings as errors."""
    compiler, sources, std = CLIENTS[kind]
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler} on this machine")
    return [compiler, *std, "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", "-o", str(out),
            *sources]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("clients")
    out = {}
    for kind in CLIENTS:
        binary = folder / f"bot-{kind}"
        subprocess.run(compiler_line(kind, binary), cwd=ROOT / "clients" / kind, check=True,
                       timeout=300)
        out[kind] = binary
    return out


@pytest.mark.parametrize("kind", sorted(CLIENTS))
def test_make_builds_the_client_and_names_its_compiler_line(kind: str, tmp_path: Path) -> None:
    if shutil.which("make") is None or shutil.which(CLIENTS[kind][0]) is None:
        pytest.skip("no make or compiler")
    copy = tmp_path / kind
    shutil.copytree(ROOT / "clients" / kind, copy)
    subprocess.run(["make", "-s"], cwd=copy, check=True, timeout=300)
    assert (copy / "bot").is_file()
    makefile = (copy / "Makefile").read_text()
    named = re.search(r"#\s+(c\+\+|cc) (.*)", makefile)
    assert named is not None and all(s in named.group(2) for s in CLIENTS[kind][1])
    help_run = subprocess.run([str(copy / "bot"), "--help"], capture_output=True, text=True,
                              timeout=60)
    assert help_run.returncode == 2 and "usage" in help_run.stderr


def own_turns_are_legal(log_path: Path, names: set[str]) -> None:
    """The log verifies, and the clients' seats have no fault and no stand-in turn."""
    log = read_match_log(log_path)
    assert verify_log(log).complete
    seats = {p.number for p in log.header.players if p.name in names}
    assert len(seats) == len(names)
    turns = [t for g in log.games for t in g.turns if t.player in seats]
    assert len(turns) > 50
    assert [t for t in turns if t.fault or t.by or (t.answer == 8 and t.move != "pass")] == []
    assert all(not set(g.stand_in) & seats for g in log.games)


def test_the_clients_play_a_match_on_match_cmd(built: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.jsonl"
    code = main(["match", "--games", "8", "--seed", "4", "--json", "--log", str(log),
                 "--cmd", f"{built['c']} -h {{host}} -p {{port}} -n c-one",
                 "--cmd", f"{built['cpp']} -h {{host}} -p {{port}} -n cpp-one",
                 "--cmd", f"{built['c']} -h {{host}} -p {{port}}", "default", "greedy"])
    out = capsys.readouterr()
    assert code == 0, out.err  # 0: every game played by its own participants
    report = json.loads(out.out)
    seats = {p["name"]: p for p in report["players"]}
    for name in ("c-one", "cpp-one", "sample-c"):
        assert seats[name]["status"] == "OK" and seats[name]["stand_in_games"] == 0
    own_turns_are_legal(log, {"c-one", "cpp-one", "sample-c"})


def test_the_clients_play_on_serve(built: dict[str, Path], tmp_path: Path) -> None:
    """The way the guide starts: ``daihinmin serve``, then each player on its own."""
    log = tmp_path / "s.jsonl"
    server = subprocess.Popen(
        [sys.executable, "-m", "daihinmin.tools", "serve", "--port", "0", "--games", "4",
         "--seed", "8", "--log", str(log), "--no-fsync"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    players: list[subprocess.Popen[bytes]] = []
    every: list[subprocess.Popen[Any]] = [server]
    try:
        assert server.stderr is not None
        found = None
        for _ in range(20):  # the first line says where it listens
            line = server.stderr.readline()
            if found := re.search(r"listening on [0-9.]+:(\d+)", line):
                break
        assert found is not None, line
        port = found.group(1)
        commands = [[str(built["c"]), "-p", port, "-n", "c-serve"],
                    [str(built["cpp"]), "-p", port, "-n", "cpp-serve"]]
        commands += [[sys.executable, "-m", "daihinmin.tools", "bot", "default", "--port", port,
                      "-q"] for _ in range(3)]
        for command in commands:
            players.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
            every.append(players[-1])
        assert server.wait(timeout=300) == 0, server.stderr.read()
        assert [p.wait(timeout=60) for p in players] == [0] * 5
    finally:
        for proc in every:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    own_turns_are_legal(log, {"c-serve", "cpp-serve"})
