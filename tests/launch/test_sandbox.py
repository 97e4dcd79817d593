"""Other people's bots, run safely: limits, nothing left behind, bwrap, check-bot.

Real processes, real limits (setrlimit), real bubblewrap, real TCP on 127.0.0.1.  Each match
seats players that attack the platform (``tests/data/sandbox/attack_bot.py``): the match
finishes, each fault is reported with its reason, and no process of theirs is left.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from daihinmin.driver.faults import SeatReport
from daihinmin.launch.inner_program import compiler, inner_program
from daihinmin.launch.limits import Limits
from daihinmin.launch.process import LaunchOptions, PlayerSpec
from daihinmin.launch.sandbox import bwrap_path
from daihinmin.launch.submission import load_submission
from daihinmin.server.config import ServerConfig
from daihinmin.server.runner import run_headless_match

DATA = Path(__file__).parent.parent / "data" / "sandbox"
ATTACK = DATA / "attack_bot.py"
CLI = [sys.executable, "-m", "daihinmin.tools"]
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
# One worker runs these one after another: each looks machine-wide for what is left of the
# attack bot, which another of them running at the same time would still be running.
pytestmark = pytest.mark.xdist_group("attack-bot")


def attack_spec(mode: str, arg: str) -> PlayerSpec:
    return PlayerSpec(mode, (sys.executable, str(ATTACK), mode, arg, "{host}", "{port}"))


def running_with(marker: str) -> list[str]:
    """Command lines of the processes (other than this one) that mention ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and int(pid) != os.getpid():
            found.append(f"{pid}: {cmdline}")
    return found


def left_after_stop(marker: str, seconds: float = 10.0) -> list[str]:
    """What still runs of ``marker`` once the processes that were stopped have had a moment
    to go (a killed process on a busy machine is torn down a little after its kill)."""
    deadline = time.monotonic() + seconds
    while (found := running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def play(specs: list[PlayerSpec], log: Path, launch: LaunchOptions) -> list[SeatReport]:
    config = ServerConfig(games=1, seed=5, port=0, log_path=log, durable=False,
                          move_timeout=5.0)
    outcome = trio.run(lambda: run_headless_match(config, specs, launch=launch))
    assert outcome.games_played == 1  # the match finished, stand-ins and all
    return outcome.seats


def test_limits_stop_players_and_nothing_is_left(tmp_path: Path) -> None:
    """Memory, CPU and file size past their limits, a forked and a setsid child that sleep
    forever, a stderr flood: each fault with its reason, every process gone."""
    limits = Limits(cpu_seconds=2, memory_mib=256, file_size_mib=8)
    specs = [attack_spec("memory", "-"), attack_spec("cpu", "-"),
             attack_spec("fork", str(tmp_path)), attack_spec("fsize", str(tmp_path)),
             attack_spec("flood", "100")]
    seats = play(specs, tmp_path / "m.jsonl", LaunchOptions(limits))
    memory, cpu, fork, fsize, flood = seats
    assert (memory.status, memory.detail.split(":")[0]) == ("CRASHED", "memory limit 256 MiB")
    assert "MemoryError" in memory.detail
    assert (cpu.status, cpu.detail.split(":")[0]) == ("TIMEOUT", "CPU limit 2 s")
    assert (fsize.status, fsize.detail.split(":")[0]) == ("CRASHED", "file size limit 8 MiB")
    assert (tmp_path / "big.bin").stat().st_size <= 8 << 20
    assert fork.status == flood.status == "OK" and fork.stand_in is None
    for name in ("7391.5", "7392.5"):  # the children: gone, whoever reaped them
        pid = int((tmp_path / f"{name}.pid").read_text())
        assert not Path(f"/proc/{pid}").exists() or b"sleep" not in Path(
            f"/proc/{pid}/cmdline").read_bytes()
    kept = tmp_path / "m.player4.stderr"  # the flood's last 64 KiB, beside the log
    assert kept.stat().st_size == 64 * 1024 and set(kept.read_bytes()) == {ord("x")}
    assert "MemoryError" in (tmp_path / "m.player0.stderr").read_text()
    assert left_after_stop(str(ATTACK)) == [] and left_after_stop("sleep 739") == []


def test_a_flood_costs_the_match_no_memory(tmp_path: Path) -> None:
    """600 MB on stderr through ``daihinmin match``: its memory stays small."""
    command = f"{sys.executable} {ATTACK} flood 600 {{host}} {{port}}"
    # A fresh process runs the match and reports the largest of its children (the match, its
    # guards and bots): this test process's own children include other tests' programs.
    measure = ("import resource, subprocess, sys\n"
               "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", measure, *CLI, "match", "--games", "1",
                           "--no-log", "--json", "--cmd", command], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    code, peak_kib = (int(word) for word in done.stdout.split())
    assert code == 0, done.stderr
    assert peak_kib < 300 * 1024  # each far below the 600 MB the player wrote


def make_submission(root: Path, mode: str, arg: str) -> Path:
    folder = root / mode
    folder.mkdir(parents=True)
    shutil.copy(ATTACK, folder / "attack_bot.py")
    (folder / "daihinmin-bot.toml").write_text(
        f'name = "{mode}"\nversion = "1"\nauthor = "test"\n'
        f'command = "{sys.executable} attack_bot.py {mode} {arg} {{host}} {{port}}"\n')
    return folder


@needs_bwrap
def test_bwrap_denies_files_network_and_keeps_limits(tmp_path: Path) -> None:
    """Under bwrap: no write outside its scratch, no read of another submission or the
    results, no connection but to its server; limits and the cleanup still hold."""
    other = tmp_path / "subs" / "other"
    other.mkdir(parents=True)
    (other / "secret.txt").write_text("the other entrant's code")
    results = tmp_path / "results.sqlite"
    results.write_text("results")
    outside = tmp_path / "outside.txt"
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        folders = [make_submission(tmp_path / "subs", "write", str(outside)),
                   make_submission(tmp_path / "subs", "read",
                                   f"{other / 'secret.txt'},{results}"),
                   make_submission(tmp_path / "subs", "connect", str(port)),
                   make_submission(tmp_path / "subs", "memory", "-"),
                   make_submission(tmp_path / "subs", "fork", "/scratch")]
        specs = [load_submission(f).spec() for f in folders]
        seats = play(specs, tmp_path / "m.jsonl",
                     LaunchOptions(Limits(memory_mib=256), sandbox="bwrap"))
    write, read, connect, memory, fork = seats
    assert not outside.exists()
    for n, seat in enumerate((write, read, connect, fork)):
        assert seat.status == "OK" and seat.stand_in is None, seat.detail
        text = (tmp_path / f"m.player{n}.stderr").read_text()
        assert "BREACH" not in text
    assert "denied: write" in (tmp_path / "m.player0.stderr").read_text()
    read_text = (tmp_path / "m.player1.stderr").read_text()
    assert read_text.count("denied: read") == 2 and "FileNotFoundError" in read_text
    assert "ConnectionRefusedError" in (tmp_path / "m.player2.stderr").read_text()
    assert (memory.status, memory.detail.split(":")[0]) == ("CRASHED", "memory limit 256 MiB")
    assert left_after_stop(str(tmp_path)) == []


@needs_bwrap
@pytest.mark.skipif(compiler() is None, reason="no C compiler (cc) here")
def test_bwrap_runs_the_c_inner_program_which_the_player_cannot_trace(tmp_path: Path) -> None:
    """With a compiler, the sandbox's first process is inner.c, built once: the player's
    parent.  The player cannot ptrace it (to use its socket to the guard)."""
    assert inner_program().kind == "c"
    specs = [attack_spec("parent", "-"), attack_spec("ptrace", "-"),
             *(PlayerSpec.bundled("default") for _ in range(3))]
    seats = play(specs, tmp_path / "m.jsonl", LaunchOptions(sandbox="bwrap"))
    assert all(seat.status == "OK" and seat.stand_in is None for seat in seats), seats
    assert "parent: /run/daihinmin/inner " in (tmp_path / "m.player0.stderr").read_text()
    traced = (tmp_path / "m.player1.stderr").read_text()
    assert "denied: ptrace" in traced and "BREACH" not in traced
    assert left_after_stop(str(ATTACK)) == []


@needs_bwrap
def test_bwrap_without_a_compiler_runs_the_python_inner_program(tmp_path: Path) -> None:
    """No cc on the PATH, no $CC, nothing built yet: ``match`` warns and runs inner.py,
    and the sandbox holds as well (no other port, no ptrace of the inner half)."""
    env = {k: v for k, v in os.environ.items() if k != "CC"}
    env.update(PATH="/nonexistent", XDG_CACHE_HOME=str(tmp_path / "cache"))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        commands = [f"{sys.executable} {ATTACK} {mode} {arg} {{host}} {{port}}"
                    for mode, arg in (("parent", "-"), ("ptrace", "-"), ("connect", port))]
        done = subprocess.run([*CLI, "match", "--sandbox", "bwrap", "-v", "--games", "1",
                               "--log", str(tmp_path / "m.jsonl"), "default", "default",
                               *(a for c in commands for a in ("--cmd", c))],
                              capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert ("WARNING daihinmin.launch: sandbox: the inner program in Python (no C compiler"
            in done.stderr)
    assert not list((tmp_path / "cache").glob("daihinmin/inner-*"))
    parent = (tmp_path / "m.player2.stderr").read_text()
    assert "parent: " in parent and " -I -S /run/daihinmin/inner" in parent
    traced = (tmp_path / "m.player3.stderr").read_text()
    assert "denied: ptrace" in traced and "BREACH" not in traced
    assert "ConnectionRefusedError" in (tmp_path / "m.player4.stderr").read_text()
    assert left_after_stop(str(ATTACK)) == []


def check_bot(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "check-bot", str(folder), "--games", "1", *args],
                          capture_output=True, text=True, timeout=300)


def write_manifest(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "daihinmin-bot.toml").write_text(body)
    return folder


def test_check_bot_good_folder(tmp_path: Path) -> None:
    folder = write_manifest(tmp_path / "good", (
        'name = "good"\nversion = "1.0"\nauthor = "me"\nbuild = "touch built"\n'
        f'command = "{sys.executable} -m daihinmin.tools bot greedy --host {{host}} '
        '--port {port}"\n'))
    done = check_bot(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["manifest", "ok"], ["build", "ok"], ["handshake", "ok"], ["games", "ok"]]
    assert (folder / "built").exists()


@pytest.mark.parametrize(("body", "says"), [
    ('name = "x"\nversion = "1"\nauthor = "a"\ncommand = "./bot"\n', "{port} placeholder"),
    ('name = "x"\nversion = 1\n', "version must be a non-empty string"),
    ("name = [unclosed", "not a valid TOML file"),
    ('name = "a b"\nversion = "1"\nauthor = "a"\ncommand = "x {port}"\n', "must be 1-15"),
])
def test_check_bot_broken_manifest(tmp_path: Path, body: str, says: str) -> None:
    done = check_bot(write_manifest(tmp_path / "bad", body))
    assert done.returncode == 4 and says in done.stdout, done.stdout
    assert done.stdout.startswith("manifest   FAILED")


def test_check_bot_failing_build(tmp_path: Path) -> None:
    folder = write_manifest(tmp_path / "b", (
        'name = "b"\nversion = "1"\nauthor = "a"\ncommand = "./bot {host} {port}"\n'
        'build = "sh -c \'echo compiler says no >&2; exit 2\'"\n'))
    done = check_bot(folder)
    assert done.returncode == 4, done.stdout
    assert "build      FAILED" in done.stdout and "exit code 2" in done.stdout
    assert "compiler says no" in done.stdout


def test_check_bot_silent_bot(tmp_path: Path) -> None:
    folder = write_manifest(tmp_path / "s", (
        'name = "s"\nversion = "1"\nauthor = "a"\n'
        f'command = "{sys.executable} silent_bot.py {{host}} {{port}}"\n'))
    shutil.copy(DATA / "silent_bot.py", folder)
    done = check_bot(folder, "--profile-time", "1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "handshake  FAILED  TIMEOUT" in done.stdout
    assert left_after_stop(str(folder)) == []


def test_sandbox_bwrap_missing_is_one_line(tmp_path: Path) -> None:
    """Without bubblewrap on PATH (and none at the usual places), exit 2 with one line."""
    if bwrap_path() is not None and any(os.access(p, os.X_OK)
                                        for p in ("/usr/bin/bwrap", "/bin/bwrap")):
        pytest.skip("bubblewrap is installed here")
    done = subprocess.run([*CLI, "match", "--sandbox", "bwrap", "--no-log"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": "/nonexistent"})
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1


def test_tournament_records_the_limit_and_never_reruns_the_database(tmp_path: Path) -> None:
    """A submission stopped by its memory limit: the reason in the results database; a
    ``--resume`` from the database alone refuses to start the programs it names."""
    import sqlite3

    folder = make_submission(tmp_path, "memory", "-")
    db = tmp_path / "t.sqlite"
    done = subprocess.run([*CLI, "tournament", "--bot", "default", "--bot", "default",
                           "--bot", "random", "--bot", "greedy", "--submission", str(folder),
                           "--games", "1", "--games-per-match", "1", "--no-duplicate",
                           "--jobs", "1", "--db", str(db), "--limit", "memory=256",
                           "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # the match failed: a stand-in played
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT participant, status, detail FROM seat_faults").fetchall()
    assert [(r[1], r[2].split(":")[0]) for r in rows] == [("CRASHED", "memory limit 256 MiB")]
    again = subprocess.run([*CLI, "tournament", "--resume", "--db", str(db)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "never a reason to run one" in again.stderr
    assert left_after_stop(str(tmp_path)) == []


def test_a_player_outlives_the_thread_that_started_it(tmp_path: Path) -> None:
    """Trio starts processes from worker threads that end after 10 idle seconds; the guard
    (and so the player) must not take that for the launcher's death."""
    from daihinmin.launch.process import run_player

    spec = PlayerSpec("sleeper", ("sh", "-c", "sleep 13; exit 7"))
    ended = trio.run(run_player, spec, "127.0.0.1", 1, LaunchOptions())
    assert ended.returncode == 7 and ended.reason is None
