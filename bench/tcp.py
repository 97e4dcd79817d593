"""``daihinmin bench tcp``: what a match over real sockets costs, per game and per process.

A real ``daihinmin serve`` process on 127.0.0.1 (port 0) and five real client processes per
table: (a) the bundled ``default`` bot, (b) a minimal native C client
(``native_client.c``, compiled with the system ``cc`` into a temporary folder; skipped
with a message where there is none), (c) the Python floor client
(``python_client.py``: the C client's play in Python, no bot, no checks).  The native
clients take every message with exactly one ``read()`` of its size (``--strict``), so a run
also checks that each table arrives whole.

The figures cover the games between the server's "game 1" and "game N" lines, so process
start-up, imports and the final report are left out: wall ms/game, CPU ms/game of the server
and of each client process (from ``/proc``; user and kernel apart from clock ticks), the
resident memory of the server at the start and end of that window, and, where ``strace`` can
attach, the system calls per game of all processes in a second, shorter run (tracing slows
everything, so it never touches the timed run).  For the bundled bot, what starting one
client process costs is measured apart: the median of a few starts refused at once (imports,
command line, the bot made).  A run where a process fails or a stand-in plays a seat is
reported and fails (exit 1): the figures would not be the client's own.

The floor (with the native clients, unless ``--no-floor``): the same games are played once
more, untimed, with the native clients recording every message (``--record``); the floor
server (``floor_server.c``, :mod:`daihinmin.bench.floor`) then replays that
session to five native clients, with the writes of ``serve`` in the run's write mode (one
per player per wait; deferred: one to the player waited on) and each reply read whole and
compared with the recorded one, and no judging at all.  Timed like ``serve``, its CPU per
game (``floor_*``) is what any server of protocol 20070 pays on this machine for these games
in that write pattern, beside the real server's figures of the same run.  The same script is
then replayed twice more in Python with no rules and no protocol logic
(:mod:`daihinmin.bench.floor_py`): on ``selectors`` (``pyfloor_*``, what any Python
server pays) and on Trio as ``serve`` drives its sockets (``triofloor_*``, what Trio's loop
costs on its own).

``--write-mode`` may be given more than once: each kind then runs in each mode, one after
the other (pairs back to back), and the results are named ``KIND:MODE``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any

from daihinmin.bench.floor import RecordingError, write_script
from daihinmin.records.exit_codes import BOT_UNREACHABLE as EXIT_UNREACHABLE
from daihinmin.records.exit_codes import FAILED, OK

PLAYERS = 5
NATIVE_SOURCE = "native_client.c"
FLOOR_SOURCE = "floor_server.c"
# default: the bundled bot; native: the C client; python: the Python floor client
# (python_client.py, the native client's play with no bot and no checks)
KINDS = ("default", "native", "python")
WRITE_MODES = ("serve", "exact", "coalesced", "deferred")  # serve: serve's own default
STRACE_GAMES = 30
STARTUP_RUNS = 5
LISTENING = re.compile(r"listening on [^:]+:(\d+)")
GAME_LINE = re.compile(r"^game (\d+): order .*, (\d+) turns, ")
JOIN_LINE = re.compile(r"^player \d+: ")
NETWORK_CALLS = frozenset({"read", "write", "readv", "writev", "recvfrom", "sendto", "recvmsg",
                           "sendmsg", "poll", "ppoll", "select", "pselect6", "epoll_wait",
                           "epoll_pwait", "epoll_pwait2", "epoll_ctl"})


class BenchError(Exception):
    """The bench could not run as asked (a process failed, a stand-in played, a timeout)."""


def cpu_seconds(pid: int) -> float:
    """CPU time of every thread of ``pid`` so far: nanoseconds from schedstat where the
    kernel has it, else clock ticks from stat."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def user_system_seconds(pid: int) -> tuple[float, float]:
    """User and kernel CPU time of ``pid`` so far (clock ticks from stat: coarse, for the
    split only)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine spent not idle so far (all processes, the
    other users' included), from ``/proc/stat``; 0 where there is none."""
    try:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    busy = sum(values[:7]) - idle  # user..softirq; steal (another guest ran) is not ours
    return busy / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@dataclass
class Snapshot:
    at: float
    server_cpu: float
    client_cpu: list[float]
    server_rss_kb: int
    server_user_system: tuple[float, float] = (0.0, 0.0)
    machine_busy: float = 0.0
    client_user_system: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class Table:
    """One server and its five clients."""

    server: subprocess.Popen[bytes]
    clients: list[subprocess.Popen[bytes]] = field(default_factory=list)
    client_logs: list[IO[bytes]] = field(default_factory=list)
    port: int = 0
    games_seen: int = 0
    turns: int = 0  # in the timed games (2..N)
    first: Snapshot | None = None
    last: Snapshot | None = None
    problems: list[str] = field(default_factory=list)
    listening: threading.Event = field(default_factory=threading.Event)
    game_seen: threading.Condition = field(default_factory=threading.Condition)
    # set once every client process is started: a fast table (native clients, the floor)
    # can end its first game before the last Popen is in ``clients``
    seated: threading.Event = field(default_factory=threading.Event)

    def snapshot(self) -> Snapshot:
        return Snapshot(time.perf_counter(), cpu_seconds(self.server.pid),
                        [cpu_seconds(c.pid) for c in self.clients], rss_kb(self.server.pid),
                        user_system_seconds(self.server.pid), machine_busy_seconds(),
                        [user_system_seconds(c.pid) for c in self.clients])

    def follow(self, games: int) -> None:
        """Read the server's stderr: the port, the game lines (snapshots at the first and
        last game) and anything else, which is a problem (a seat handed over, an error)."""
        assert self.server.stderr is not None
        for raw in self.server.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            listening = LISTENING.search(line)
            game = GAME_LINE.match(line)
            if listening and not self.listening.is_set():
                self.port = int(listening.group(1))
                self.listening.set()
            elif game:
                number = int(game.group(1))
                if number > 1:
                    self.turns += int(game.group(2))
                self.seated.wait(60)
                try:
                    if number == 1:
                        self.first = self.snapshot()
                    elif number == games:
                        self.last = self.snapshot()
                except OSError:
                    self.problems.append(f"a process was gone at game {number}")
                with self.game_seen:
                    self.games_seen = number
                    self.game_seen.notify_all()
            elif line and not JOIN_LINE.match(line):
                self.problems.append(line)
        self.listening.set()  # the server ended before listening: the caller finds out

    def processes(self) -> list[subprocess.Popen[bytes]]:
        return [self.server, *self.clients]


@dataclass(frozen=True)
class Floor:
    """The compiled floor server and the script it replays (a recorded session); with a
    ``loop`` of :data:`~daihinmin.bench.floor_py.LOOPS` the script is replayed in
    Python on that loop instead (``python -m daihinmin.bench.floor_py``)."""

    server: Path
    script: Path
    loop: str | None = None


def server_argv(games: int, seed: int, write_mode: str, floor: Floor | None = None
                ) -> list[str]:
    if floor is not None and floor.loop is not None:
        return [sys.executable, "-m", "daihinmin.bench.floor_py", floor.loop,
                str(floor.script)]
    if floor is not None:
        return [str(floor.server), str(floor.script)]
    argv = [sys.executable, "-m", "daihinmin.tools", "serve", "--port", "0", "--games",
            str(games), "--seed", str(seed), "--no-log"]
    return argv + ([] if write_mode == "serve" else ["--write-mode", write_mode])


def client_argv(kind: str, native: Path | None, port: int, number: int,
                record: Path | None = None) -> list[str]:
    if kind == "native":
        assert native is not None
        recording = ["--record", str(record / f"client{number}.rec")] if record else []
        return [str(native), "127.0.0.1", str(port), f"native{number}", "--strict",
                *recording]
    if kind == "python":
        return [sys.executable, "-m", "daihinmin.bench.python_client", "127.0.0.1",
                str(port), f"python{number}"]
    return [sys.executable, "-m", "daihinmin.tools", "bot", kind, "--host", "127.0.0.1",
            "--port", str(port)]


def start_table(kind: str, native: Path | None, games: int, seed: int,
                write_mode: str, floor: Floor | None = None,
                record: Path | None = None) -> tuple[Table, threading.Thread]:
    server = subprocess.Popen(server_argv(games, seed, write_mode, floor),
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    table = Table(server)
    reader = threading.Thread(target=table.follow, args=(games,), daemon=True)
    reader.start()
    if not table.listening.wait(60) or not table.port:
        stop([table])
        raise BenchError("the server did not start listening")
    for number in range(PLAYERS):
        # A file, not a pipe nobody drains during the run; closed in close_logs().
        log = tempfile.TemporaryFile()  # noqa: SIM115
        table.clients.append(subprocess.Popen(
            client_argv(kind, native, table.port, number, record), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True))
        table.client_logs.append(log)
    table.seated.set()
    return table, reader


def stop(tables: list[Table]) -> None:
    """Stop every process the bench started that is still running (its own session)."""
    for table in tables:
        for proc in table.processes():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def close_logs(tables: list[Table]) -> None:
    for table in tables:
        for log in table.client_logs:
            log.close()


def finish(tables: list[Table], readers: list[threading.Thread], timeout: float) -> None:
    """Wait for every process; a non-zero exit or a reported problem fails the run."""
    deadline = time.monotonic() + timeout
    try:
        # Every process is reaped only after the readers took the last game's snapshot (a
        # reader ends when the server's stderr does): one that has exited stays readable in
        # /proc until then (a zombie keeps its times).  A floor replay exits right after
        # its last game line.
        for reader in readers:
            reader.join(max(0.1, deadline - time.monotonic()))
        for table in tables:
            table.server.wait(max(0.1, deadline - time.monotonic()))
        for table in tables:
            for proc in table.clients:
                proc.wait(max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"the match did not end within {timeout:.0f} s") from exc
    finally:
        stop(tables)
    for reader in readers:
        reader.join(5)
    for table in tables:
        for proc in table.processes():
            if proc.returncode != 0:
                tail = ("; ".join(table.problems[-3:]) if proc is table.server else
                        client_stderr(table.client_logs[table.clients.index(proc)]))
                argv = proc.args if isinstance(proc.args, list) else [proc.args]
                raise BenchError(f"{' '.join(map(str, argv[:4]))}... exited with "
                                 f"{proc.returncode}" + (f": {tail}" if tail else ""))
        if table.problems:
            raise BenchError("the server reported: " + "; ".join(table.problems[:3]))


def client_stderr(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode("utf-8", "replace").strip()[-300:]


def run_kind(kind: str, native: Path | None, games: int, tables: int, seed: int,
             write_mode: str, floor: Floor | None = None) -> dict[str, Any]:
    """One timed run; with ``floor`` the floor server replays its script at each table
    in place of ``serve`` (the same session at every table)."""
    started: list[Table] = []
    readers: list[threading.Thread] = []
    try:
        for t in range(tables):
            table, reader = start_table(kind, native, games, seed + t, write_mode, floor)
            started.append(table)
            readers.append(reader)
        finish(started, readers, timeout=120 + games * 2.0)
    finally:
        stop(started)
        close_logs(started)
    window = games - 1
    walls, server_cpu, client_cpu, user, system = [], [], [], [], []
    client_user, client_system = [], []
    turns = sum(t.turns for t in started)
    for table in started:
        first, last = table.first, table.last
        if first is None or last is None:
            raise BenchError("the server did not report its first and last game")
        walls.append(last.at - first.at)
        server_cpu.append(last.server_cpu - first.server_cpu)
        user.append(last.server_user_system[0] - first.server_user_system[0])
        system.append(last.server_user_system[1] - first.server_user_system[1])
        client_cpu += [b - a for a, b in zip(first.client_cpu, last.client_cpu, strict=True)]
        for a, b in zip(first.client_user_system, last.client_user_system, strict=True):
            client_user.append(b[0] - a[0])
            client_system.append(b[1] - a[1])
    firsts = [t.first for t in started if t.first]
    lasts = [t.last for t in started if t.last]
    span = max(s.at for s in lasts) - min(s.at for s in firsts)
    # Cores busy over the run: the bench's own processes, and the whole machine (the same
    # window, from the first table's first game to the last table's last).
    ours = (sum(server_cpu) + sum(client_cpu)) / span
    machine = (max(s.machine_busy for s in lasts) - min(s.machine_busy for s in firsts)) / span
    per_game = 1000.0 / window
    return {
        "kind": kind, "tables": tables, "games_per_table": games, "timed_games": window * tables,
        "turns_per_game": round(turns / (window * tables), 1),
        "wall_ms_per_game": round(sum(walls) / len(walls) * per_game, 3),
        "games_per_second": round(window * tables / span, 2),
        "server_cpu_ms_per_game": round(sum(server_cpu) / len(server_cpu) * per_game, 3),
        "client_cpu_ms_per_game": round(sum(client_cpu) / len(client_cpu) * per_game, 3),
        "client_cpu_ms_per_game_max": round(max(client_cpu) * per_game, 3),
        "client_user_ms_per_game": round(statistics.mean(client_user) * per_game, 3),
        "client_system_ms_per_game": round(statistics.mean(client_system) * per_game, 3),
        "server_cpu_us_per_turn": round(sum(server_cpu) * 1e6 / turns, 2),
        # per client process: the kinds play games of different lengths
        "client_cpu_us_per_turn": round(sum(client_cpu) / PLAYERS * 1e6 / turns, 2),
        "server_user_ms_per_game": round(sum(user) / len(user) * per_game, 3),
        "server_system_ms_per_game": round(sum(system) / len(system) * per_game, 3),
        "cores_busy_bench": round(ours, 2),
        "cores_busy_machine": round(machine, 2),
        "cores": os.cpu_count(),
        "server_rss_kb_start": [t.first.server_rss_kb for t in started if t.first],
        "server_rss_kb_end": [t.last.server_rss_kb for t in started if t.last],
    }


def startup_cost(kind: str, runs: int = STARTUP_RUNS) -> dict[str, float]:
    """What starting one ``daihinmin bot KIND`` process costs (imports, command line, the
    bot made), measured to its first connect: each run tries a port bound here but not
    listening, so the bot is refused at once and exits with 3 (unreachable).  Medians of
    ``runs`` runs, CPU from the children's rusage."""
    cpu, wall = [], []
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        argv = client_argv(kind, None, closed.getsockname()[1], 0)
        argv += ["--connect-timeout", "0", "-q"]
        for _ in range(runs):
            before, at = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, check=False, timeout=120)
            wall.append(time.perf_counter() - at)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != EXIT_UNREACHABLE:
                raise BenchError(f"the start-up run of {kind} exited with {done.returncode}: "
                                 + done.stderr.decode("utf-8", "replace").strip()[-300:])
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return {"client_startup_cpu_ms": round(statistics.median(cpu) * 1000, 1),
            "client_startup_wall_ms": round(statistics.median(wall) * 1000, 1)}


def strace_counts(path: Path) -> tuple[int, int]:
    """(all calls, network and polling calls) from an ``strace -c`` summary."""
    total = network = 0
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5 or not parts[3].isdigit():
            continue
        name = parts[-1]
        if name == "total":
            total = int(parts[3])
        elif name in NETWORK_CALLS:
            network += int(parts[3])
    return total, network


def run_strace(kind: str, native: Path | None, seed: int, write_mode: str,
               folder: Path) -> dict[str, Any]:
    """System calls per game: strace attaches to the server and to the clients after the
    second game and detaches before the last; the games seen in between divide."""
    games = STRACE_GAMES
    table, reader = start_table(kind, native, games, seed, write_mode)
    tracers: list[subprocess.Popen[bytes]] = []
    try:
        with table.game_seen:
            table.game_seen.wait_for(lambda: table.games_seen >= 2 or table.server.poll()
                                     is not None, timeout=120)
        outputs = {"server": folder / "server.strace", "clients": folder / "clients.strace"}
        groups = {"server": [table.server], "clients": table.clients}
        for name, procs in groups.items():
            argv = ["strace", "-f", "-c", "-o", str(outputs[name])]
            for proc in procs:
                argv += ["-p", str(proc.pid)]
            tracers.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL))
        time.sleep(0.5)  # attaching
        with table.game_seen:
            begin = table.games_seen
            table.game_seen.wait_for(lambda: table.games_seen >= games - 1 or
                                     table.server.poll() is not None, timeout=300)
            end = table.games_seen
        for tracer in tracers:
            tracer.send_signal(signal.SIGINT)
        for tracer in tracers:
            tracer.wait(30)
        finish([table], [reader], timeout=120)
    finally:
        for tracer in tracers:
            if tracer.poll() is None:
                tracer.kill()
                tracer.wait()
        stop([table])
        close_logs([table])
    traced = end - begin
    if traced < 5:
        raise BenchError(f"strace saw only {traced} games")
    server_total, server_net = strace_counts(outputs["server"])
    client_total, client_net = strace_counts(outputs["clients"])
    return {"games": traced,
            "server_syscalls_per_game": round(server_total / traced, 1),
            "server_network_syscalls_per_game": round(server_net / traced, 1),
            "client_syscalls_per_game": round(client_total / traced, 1),
            "client_network_syscalls_per_game": round(client_net / traced, 1),
            "all_syscalls_per_game": round((server_total + client_total) / traced, 1)}


def compile_native(folder: Path, source_name: str = NATIVE_SOURCE) -> Path | None:
    """A native program of the bench (the client by default) built with the system ``cc``;
    None where there is no compiler."""
    cc = os.environ.get("CC") or shutil.which("cc")
    if cc is None:
        return None
    source = resources.files("daihinmin.bench").joinpath(source_name)
    exe = folder / source_name.removesuffix(".c")
    with resources.as_file(source) as path:
        done = subprocess.run([cc, "-O2", "-o", str(exe), str(path)], capture_output=True,
                              text=True, check=False)
    if done.returncode != 0:
        raise BenchError(f"{cc} could not build {source_name}: {done.stderr.strip()[-300:]}")
    return exe


def record_floor(native: Path, games: int, seed: int, write_mode: str, folder: Path
                 ) -> Floor:
    """A real ``serve`` session with the native clients recording every message (not timed),
    turned into the floor server's script, and the floor server built."""
    server = compile_native(folder, FLOOR_SOURCE)
    assert server is not None  # the native client was built with the same compiler
    recordings = folder / "recordings"
    recordings.mkdir(exist_ok=True)
    table, reader = start_table("native", native, games, seed, write_mode, record=recordings)
    try:
        finish([table], [reader], timeout=120 + games * 2.0)
    finally:
        stop([table])
        close_logs([table])
    files = [recordings / f"client{n}.rec" for n in range(PLAYERS)]
    script = folder / "floor.script"
    try:
        write_script(files, script, deferred=write_mode == "deferred")
    except RecordingError as exc:
        raise BenchError(f"the recorded session cannot be replayed: {exc}") from exc
    finally:
        for path in files:
            path.unlink(missing_ok=True)
    return Floor(server, script)


# The floor replays, by their figures' prefix, with their loop and what the text calls them:
# the C server, then the same script in Python on selectors and on Trio (bench_floor_py),
# each loop's own cost with no rules.
FLOOR_LOOPS = (
    ("floor", None, "floor server (the same session replayed in C, no judging)"),
    ("pyfloor", "selectors", "  the same in Python on selectors"),
    ("triofloor", "trio", "  the same in Python on Trio, as serve"),
)


def floor_figures(floor: dict[str, Any], prefix: str = "floor") -> dict[str, Any]:
    """A floor run's figures beside the real server's, under ``PREFIX_`` names."""
    keys = ("wall_ms_per_game", "games_per_second", "server_cpu_ms_per_game",
            "server_user_ms_per_game", "server_system_ms_per_game", "server_cpu_us_per_turn",
            "client_cpu_ms_per_game", "client_user_ms_per_game", "client_system_ms_per_game",
            "client_cpu_us_per_turn", "turns_per_game")
    return {f"{prefix}_{key}": floor[key] for key in keys}


def run_mode(kind: str, mode: str, native: Path | None, args: argparse.Namespace,
             folder: Path, out: dict[str, Any]) -> dict[str, Any]:
    """One kind in one write mode: the timed run, the floor (native), the system calls."""
    result = run_kind(kind, native, args.games, args.tables, args.seed, mode)
    result["write_mode"] = mode
    if kind == "native" and not args.no_floor:
        assert native is not None
        floor = record_floor(native, args.games, args.seed, mode, folder)
        for prefix, loop, _ in FLOOR_LOOPS:
            replay = Floor(floor.server, floor.script, loop)
            result.update(floor_figures(run_kind(kind, native, args.games, args.tables,
                                                 args.seed, mode, replay), prefix))
        floor.script.unlink()
    if args.no_strace:
        result["syscalls"] = None
    elif not strace_usable():
        result["syscalls"] = None
        out["skipped"][f"{kind} syscalls"] = "strace not found: no syscall count"
    else:
        result["syscalls"] = run_strace(kind, native, args.seed, mode, folder)
    return result


def strace_usable() -> bool:
    return shutil.which("strace") is not None


def load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
        return f"{one:.2f} {five:.2f} {fifteen:.2f}"
    except OSError:
        return "unknown"


def register_bench_tcp(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = bench_sub.add_parser("tcp", help="server and client processes over loopback: "
                                         "wall, CPU, syscalls and memory per game")
    p.add_argument("--games", type=int, default=100, help="games per table (at least 3)")
    p.add_argument("--tables", type=int, default=1, help="tables (servers) run at once")
    p.add_argument("--seed", type=int, default=1, help="the match seed")
    p.add_argument("--kind", action="append", choices=list(KINDS), default=None,
                   help="client kinds to run (repeatable; default: all three)")
    p.add_argument("--write-mode", action="append", choices=list(WRITE_MODES), default=None,
                   help="the server's writes (default: serve, what serve does by default, "
                        "i.e. coalesced); repeatable: each kind runs in each mode in turn")
    p.add_argument("--no-strace", action="store_true", help="skip the system call count")
    p.add_argument("--no-floor", action="store_true",
                   help="skip the floors (the native clients' session replayed by a "
                        "minimal C server that does not judge, and in Python on selectors "
                        "and on Trio)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=bench_tcp)


def bench_tcp(args: argparse.Namespace) -> int:
    if args.games < 3 or args.tables < 1:
        print("daihinmin bench tcp: --games must be at least 3 and --tables at least 1",
              file=sys.stderr)
        return 2
    kinds = args.kind or list(KINDS)
    modes = list(dict.fromkeys(args.write_mode or ["serve"]))
    out: dict[str, Any] = {"bench": "tcp", "games": args.games, "tables": args.tables,
                           "write_mode": ",".join(modes), "load_before": load(),
                           "results": {}, "skipped": {}}
    try:
        with tempfile.TemporaryDirectory(prefix="daihinmin-bench-") as tmp:
            folder = Path(tmp)
            native = compile_native(folder) if "native" in kinds else None
            for kind in kinds:
                if kind == "native" and native is None:
                    out["skipped"][kind] = "no C compiler (cc) found: native clients skipped"
                    continue
                names = [kind if len(modes) == 1 else f"{kind}:{mode}" for mode in modes]
                for name, mode in zip(names, modes, strict=True):
                    out["results"][name] = run_mode(kind, mode, native, args, folder, out)
                if kind == "default":  # the same in every mode: once
                    out["results"][names[0]].update(startup_cost(kind))
    except (BenchError, OSError) as exc:
        print(f"daihinmin bench tcp: {exc}", file=sys.stderr)
        return FAILED
    out["load_after"] = load()
    if args.json:
        print(json.dumps(out))
        return OK
    for reason in out["skipped"].values():
        print(f"skipped: {reason}", file=sys.stderr)
    print(f"bench tcp: {args.tables} table(s) x {args.games} games, writes "
          f"{out['write_mode']}, load {out['load_before']} -> {out['load_after']}")
    for kind, r in out["results"].items():
        print(f"  {kind:8s} ({r['write_mode']}) wall {r['wall_ms_per_game']:.2f} ms/game "
              f"({r['games_per_second']:.1f} games/s), server CPU "
              f"{r['server_cpu_ms_per_game']:.2f} ms/game, client CPU "
              f"{r['client_cpu_ms_per_game']:.2f} ms/game per process; "
              f"{r['turns_per_game']:.0f} turns/game, server {r['server_cpu_us_per_turn']:.0f} "
              f"us CPU/turn ({r['server_user_ms_per_game']:.1f} user + "
              f"{r['server_system_ms_per_game']:.1f} kernel ms/game); server RSS "
              f"{r['server_rss_kb_start']} -> {r['server_rss_kb_end']} kB; cores busy: "
              f"{r['cores_busy_bench']:.2f} this bench, {r['cores_busy_machine']:.2f} the "
              f"machine, of {r['cores']}")
        print(f"           client CPU {r['client_user_ms_per_game']:.2f} user + "
              f"{r['client_system_ms_per_game']:.2f} kernel ms/game, "
              f"{r['client_cpu_us_per_turn']:.0f} us/turn")
        for prefix, _, what in FLOOR_LOOPS:
            if f"{prefix}_server_cpu_ms_per_game" in r:
                print(f"           {what}: {r[f'{prefix}_server_cpu_ms_per_game']:.2f} ms "
                      f"CPU/game ({r[f'{prefix}_server_user_ms_per_game']:.2f} user + "
                      f"{r[f'{prefix}_server_system_ms_per_game']:.2f} kernel), wall "
                      f"{r[f'{prefix}_wall_ms_per_game']:.2f} ms/game, clients "
                      f"{r[f'{prefix}_client_cpu_ms_per_game']:.2f} ms CPU/game")
        if "client_startup_cpu_ms" in r:
            print(f"           start-up of one client process (to its first connect): "
                  f"{r['client_startup_cpu_ms']:.0f} ms CPU, "
                  f"{r['client_startup_wall_ms']:.0f} ms wall")
        s = r["syscalls"]
        if s:
            print(f"           syscalls/game: server {s['server_syscalls_per_game']:.0f} "
                  f"({s['server_network_syscalls_per_game']:.0f} network), clients "
                  f"{s['client_syscalls_per_game']:.0f} "
                  f"({s['client_network_syscalls_per_game']:.0f} network), over {s['games']} "
                  "games")
    return OK
