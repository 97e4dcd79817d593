#!/usr/bin/env python3
"""Measure the figures of docs/BENCHMARKS.md and write them as Markdown tables.

Each section runs real ``daihinmin`` commands (the ones printed above its table), reads
their ``--json`` (or text) output and renders one table, with the date, the machine and
its load average before and after::

    python scripts/benchmarks.py --list                         # the sections
    python scripts/benchmarks.py --only engine                  # one section, printed
    python scripts/benchmarks.py --out docs/BENCHMARKS.md       # every section, in the page
    python scripts/benchmarks.py --only levels --out docs/BENCHMARKS.md

With ``--out`` each measured section replaces its own block in the page (between its
``<!-- bench:NAME -->`` markers); the other sections stay as they are. A figure is never
appended to an old one: a re-measured section is written anew. Speed sections want a quiet
machine; strength sections (``--time-ms 0 --playouts N``) give the same figures under any
load. ``--scale`` multiplies every game and decision count (0.05 for a quick try).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRESETS = ("uecda", "original", "web", "app", "thirteenth_floor")
Json = dict[str, Any]


def daihinmin_exe() -> str:
    """The ``daihinmin`` of this interpreter's environment (else the one on PATH)."""
    here = Path(sys.executable).parent / "daihinmin"
    if here.exists():
        return str(here)
    found = shutil.which("daihinmin")
    if found is None:
        raise SystemExit("benchmarks: no 'daihinmin' command (pip install -e . first)")
    return found


def run(args: Sequence[str]) -> str:
    """Run ``daihinmin ARGS`` and return its standard output; stop on a failure."""
    done = subprocess.run([daihinmin_exe(), *args], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks: 'daihinmin {shlex.join(args)}' exited "
                         f"{done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def run_json(args: Sequence[str]) -> Json:
    out: Json = json.loads(run(args).strip().splitlines()[-1])
    return out


def scaled(n: int, scale: float, least: int = 1) -> int:
    return max(least, round(n * scale))


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ci(pair: Sequence[float], digits: int = 2) -> str:
    return f"{pair[0]:.{digits}f} to {pair[1]:.{digits}f}"


@dataclass(frozen=True)
class Result:
    commands: list[str]  # what was run, as a reader types it
    body: str  # the table(s), Markdown


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    intro: str
    measure: Callable[[float], Result]
    needs_quiet: bool = True


# --- speed -------------------------------------------------------------------------------

def engine(scale: float) -> Result:
    games = scaled(200, scale, 5)
    cmds, rows = [], []
    for rules in PRESETS:
        args = ["bench", "engine", "--rules", rules, "--games", str(games), "--seed", "1",
                "--json"]
        cmds.append(shlex.join(["daihinmin", *args]))
        r = run_json(args)
        rows.append([f"`{rules}`", f"{r['turns'] / r['games']:.0f}",
                     f"{r['games_per_second']:,.0f}", f"{r['turns_per_second']:,.0f}"])
    return Result(cmds, table(["preset", "turns a game", "games/s", "turns/s"], rows))


def mc_search(scale: float) -> Result:
    decisions = scaled(60, scale, 3)
    cmds, rows = [], []
    for rules in PRESETS:
        args = ["bench", "mc", "--rules", rules, "--decisions", str(decisions), "--seed", "5",
                "--json"]
        cmds.append(shlex.join(["daihinmin", *args]))
        r = run_json(args)
        rows.append([f"`{rules}`", f"{r['playouts_per_second_per_core']:,.0f}",
                     f"{r['playouts_per_cpu_second']:,.0f}",
                     f"{r['decision_ms_median']:.0f}", f"{r['decision_ms_p99']:.0f}"])
    return Result(cmds, table(["preset", "playouts/s/core (wall clock)",
                               "playouts per CPU second", "decision ms, median",
                               "decision ms, p99"], rows))


def tcp(scale: float) -> Result:
    games = scaled(150, scale, 3)
    args = ["bench", "tcp", "--games", str(games), "--write-mode", "coalesced",
            "--write-mode", "deferred", "--no-strace", "--json"]
    r = run_json(args)
    rows, floors = [], []
    for name, k in r["results"].items():
        startup = (f"{k['client_startup_cpu_ms']:.0f}" if "client_startup_cpu_ms" in k
                   else "")
        rows.append([f"`{name}`", f"{k['turns_per_game']:.0f}",
                     f"{k['games_per_second']:.1f}",
                     f"{k['server_cpu_ms_per_game']:.1f} "
                     f"({k['server_user_ms_per_game']:.1f} + "
                     f"{k['server_system_ms_per_game']:.1f})",
                     f"{k['server_cpu_us_per_turn']:.0f}",
                     f"{k['client_cpu_ms_per_game']:.2f}", startup,
                     f"{max(k['server_rss_kb_end']) / 1024:.1f}"])
        for floor, label in (("floor", "C, no rules"), ("pyfloor", "Python `selectors`"),
                             ("triofloor", "Python, Trio")):
            if f"{floor}_server_cpu_ms_per_game" in k:
                floors.append([f"`{name}`", label, f"{k[f'{floor}_games_per_second']:.0f}",
                               f"{k[f'{floor}_server_cpu_ms_per_game']:.1f}",
                               f"{k[f'{floor}_server_cpu_us_per_turn']:.0f}"])
    body = table(["client kind : server writes", "turns a game", "games/s",
                  "server CPU ms a game (user + kernel)", "server CPU µs a turn",
                  "CPU ms a game of one client", "client start-up CPU ms",
                  "server RSS MB"], rows)
    if floors:
        body += ("\n\nThe floors: the native clients' session replayed by a server that "
                 "does not judge, in C and in Python.\n\n"
                 + table(["session", "floor server", "games/s", "server CPU ms a game",
                          "server CPU µs a turn"], floors))
    return Result([shlex.join(["daihinmin", *args])], body)


def match(scale: float) -> Result:
    games = scaled(300, scale, 4)
    cmds, rows = [], []
    for jobs in (1, 2):
        args = ["match", "default", "default", "default", "default", "default", "--games",
                str(games), "--seed", "5", "--no-log", "--jobs", str(jobs), "--json"]
        cmds.append(shlex.join(["daihinmin", *args]))
        r = run_json(args)
        rows.append([str(jobs), str(r["games"]), f"{r['games'] / r['match_seconds']:.1f}",
                     f"{r['games'] / r['wall_seconds']:.1f}"])
    return Result(cmds, table(["`--jobs`", "games", "games/s (match)",
                               "games/s (whole command, start-up included)"], rows))


def tournament(scale: float) -> Result:
    cmds, rows = [], []
    for transport, games, per in (("in-process", 1000, None), ("tcp", 200, 50),
                                  ("tcp", 200, 10)):
        args = ["bench", "tournament", "--transport", transport,
                "--games", str(scaled(games, scale, 10))]
        if per is not None:
            args += ["--games-per-match", str(per)]
        args.append("--json")
        cmds.append(shlex.join(["daihinmin", *args]))
        r = run_json(args)
        rows.append([transport, str(per or ""), str(r["games"]), str(r["tables"]),
                     f"{r['games_per_second']:.1f}", f"{r['cpu_ms_per_game']:.1f}"])
    return Result(cmds, table(["transport", "games a match", "games", "tables at once",
                               "games/s", "CPU ms a game"], rows))


def server(scale: float) -> Result:
    args = ["bench", "server", "--games", str(scaled(5000, scale, 200)), "--stand-ins",
            "--json"]
    r = run_json(args)
    rows = [[str(r["games"]), f"{r['games_per_second']:.0f}",
             f"{r['rss_kib_early'] / 1024:.1f}", f"{r['rss_kib_last'] / 1024:.1f}",
             f"{r['log_bytes'] / 2**20:.1f}", f"{r['resume_seconds']:.2f}",
             f"{r['resume_rss_growth_kib']}"]]
    return Result([shlex.join(["daihinmin", *args])],
                  table(["games", "games/s", "RSS MB at game 100", "RSS MB at the end",
                         "log MB", "resume s", "resume RSS growth KiB"], rows))


# --- strength ----------------------------------------------------------------------------

LEVEL_BOTS = ("random", "weakest", "default", "greedy")
LEVELS_RE = re.compile(r"mean place (?P<mean>[0-9.]+) ± (?P<half>[0-9.]+)")


def levels(scale: float) -> Result:
    games = scaled(200, scale, 5)
    pattern = f"daihinmin levels PRESET BOT FIELD {games} --seed 5"
    body = []
    for field in ("default", "greedy"):
        rows = []
        for bot in LEVEL_BOTS:
            row: list[object] = [f"`{bot}`"]
            for rules in PRESETS:
                out = run(["levels", rules, bot, field, str(games), "--seed", "5"])
                m = LEVELS_RE.search(out)
                if m is None:
                    raise SystemExit(f"benchmarks: cannot read 'daihinmin levels': {out!r}")
                row.append(f"{m['mean']} ± {m['half']}")
            rows.append(row)
        body.append(f"Against a table of `{field}` bots (FIELD = `{field}`):\n\n"
                    + table(["BOT in seat 0", *(f"`{p}`" for p in PRESETS)], rows))
    return Result([pattern], "\n\n".join(body))


@dataclass(frozen=True)
class StrengthRun:
    label: str
    args: tuple[str, ...]


def strength_runs(games: int, playouts: int) -> list[StrengthRun]:
    fixed = ("--time-ms", "0", "--playouts", str(playouts))

    def at(rules: str, opponent: str, *extra: str) -> tuple[str, ...]:
        return ("mc-strength", "--rules", rules, "--opponent", opponent, "--games",
                str(games), "--jobs", "2", "--seed", "51", *fixed, *extra, "--json")

    return [
        StrengthRun("`uecda`, 4 `default`", at("uecda", "default")),
        StrengthRun("`uecda`, 4 `greedy`", at("uecda", "greedy")),
        StrengthRun("`uecda`, 4 `weakest`", at("uecda", "weakest")),
        StrengthRun("`uecda`, 4 `random`", at("uecda", "random")),
        StrengthRun("`uecda`, 4 `default`, the true hands shown (`--oracle`)",
                    at("uecda", "default", "--oracle")),
        StrengthRun("`web`, 3 `default`", at("web", "default")),
        StrengthRun("`app`, 3 `default`", at("app", "default")),
        StrengthRun("`original`, 5 `default`", at("original", "default")),
        StrengthRun("`thirteenth_floor`, 3 `default`", at("thirteenth_floor", "default")),
    ]


def mc_strength(scale: float) -> Result:
    games = scaled(200, scale, 4)
    cmds, rows = [], []
    for r in strength_runs(games, 2000):
        cmds.append(shlex.join(["daihinmin", *r.args]))
        s = run_json(r.args)
        points = f"{s['mean_points']:.2f} ({ci(s['ci95'])})"
        if s["rules"] == "web":
            points = "(no points)"
        elif s["rules"] == "thirteenth_floor":
            points = f"card score {points}, lower is better"
        first = f"{100 * s['first_share']:.1f}% ({ci([100 * x for x in s['first_share_ci95']], 1)})"
        rows.append([r.label, str(s["games"]), first,
                     f"{s['mean_place']:.2f} ({ci(s['mean_place_ci95'])})", points,
                     f"{s['decision_cpu_ms_median']:.0f} ({s['decision_cpu_ms_p99']:.0f})"])
    return Result(cmds, table(["table", "games", "first place", "mean place (1 = first)",
                               "mean points", "CPU ms a decision, median (p99)"], rows))


def self_play(scale: float) -> Result:
    games = scaled(200, scale, 4)
    same = ["--opt", "worlds=32", "--opt", "proposals=128"]
    args = ["mc-strength", "--opponent", "mc", "--games", str(games), "--jobs", "2",
            "--seed", "71", "--time-ms", "0", "--playouts", "100", *same,
            "--opponent-opt", "time_ms=0", "--opponent-opt", "playouts=100",
            "--opponent-opt", "worlds=32", "--opponent-opt", "proposals=128", "--json"]
    s = run_json(args)
    rows = [[str(s["games"]), f"{s['mean_points']:.2f}", ci(s["ci95"]), ci(s["ci95_blocks"]),
             ", ".join(f"{p:.2f}" for p in s["opponent_mean_points"])]]
    return Result([shlex.join(["daihinmin", *args])],
                  table(["games", "`mc`'s mean points", "95% interval, games independent",
                         "95% interval, 25-game blocks", "the four copies' means"], rows))


SECTIONS = [
    Section("engine", "The rules engine",
            "Whole games of random legal moves in one process, pure Python (no sockets, no "
            "bots to speak of): what the engine costs per game and per turn.", engine),
    Section("mc-search", "`mc`'s search",
            "`mc` deciding from fixed positions at its default 250 ms a decision: playouts "
            "of the search loop (sampling excluded) per second of wall clock and per second "
            "of CPU, and the wall time of whole decisions.", mc_search),
    Section("tcp", "Server and clients over loopback",
            "A real `serve` and five real client processes per table over loopback, for "
            "the bundled `default` bot, a tiny native C client (`native`) and the same "
            "client in plain Python (`python`), with the server's two write patterns "
            "(`coalesced`, what `serve` does by default; `deferred`, what `match` does "
            "for bundled bots).", tcp),
    Section("match", "`daihinmin match`",
            "Five `default` bot processes against one server per table; `--jobs 2` plays "
            "two tables at once, each its own server and players.", match),
    Section("tournament", "Tournaments",
            "Five `default` bots per table, in process and over TCP (a server per table "
            "and a process per bot; starting the bots is paid once per match).",
            tournament),
    Section("server", "The server's memory over one long match",
            "One match played by the server's own stand-ins (no sockets), its RSS, then "
            "the time to `--resume` its log: the memory does not grow with the match.",
            server),
    Section("levels", "The CPU levels' order",
            "One bot in seat 0 against a table of one other kind, at each preset's default "
            "player count: its mean place (1 = first; a seat among equals averages 3.0 "
            "with five players, 2.5 with four, 3.5 with six), ± the 95% interval taking "
            "games as independent. No timing: any load gives the same figures.", levels,
            needs_quiet=False),
    Section("mc-strength", "`mc`'s strength",
            "One `mc` against the preset's other seats, in process, at a fixed 2,000 "
            "playouts a decision (`--time-ms 0 --playouts 2000`), so the figures do not "
            "depend on the machine or its load. `mc`'s default is 250 ms of wall clock a "
            "decision, several times these playouts on a free core: these are a floor for "
            "the default player. Intervals are 95%, games taken as independent. "
            "`--oracle` shows `mc` the true hands before each play: the gap to the plain "
            "run is what the hidden cards cost it.", mc_strength, needs_quiet=False),
    Section("self-play", "A check of the strength harness",
            "`mc` against four copies of itself at other seeds, all at the same small "
            "budget: every seat should score the equal share, 3.0 points, within the "
            "interval that resamples 25-game blocks (games of a match are linked by the "
            "classes and the exchange, so the interval that takes them as independent is "
            "too narrow).", self_play,
            needs_quiet=False),
]


# --- the page ----------------------------------------------------------------------------

def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def load() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:
        return None


def shown(avg: tuple[float, float, float] | None) -> str:
    return "unknown" if avg is None else " / ".join(f"{x:.1f}" for x in avg)


BUSY = ("The machine was busy (a load average above its {cores} cores): these speed figures "
        "are far below what it gives when quiet, and only compare with each other.")


def measure(section: Section, scale: float) -> str:
    before = load()
    started = datetime.datetime.now()
    result = section.measure(scale)
    after = load()
    script = "python scripts/benchmarks.py --only " + section.name
    if scale != 1:
        script += f" --scale {scale:g}"
    commands = "\n".join(result.commands)
    cores = os.cpu_count() or 1
    busy = section.needs_quiet and any(avg is not None and avg[0] > cores
                                       for avg in (before, after))
    warning = " " + BUSY.format(cores=cores) if busy else ""
    return (f"<!-- bench:{section.name} -->\n### {section.title}\n\n{section.intro}\n\n"
            f"```sh\n{commands}\n```\n\n{result.body}\n\n"
            f"Measured {started:%Y-%m-%d} on {machine()}; load average (1 / 5 / 15 min) "
            f"{shown(before)} before, {shown(after)} after.{warning} "
            f"Re-measure: `{script}`.\n"
            f"<!-- /bench:{section.name} -->")


def replace(page: str, name: str, block: str) -> str:
    """``page`` with the block of section ``name`` replaced by ``block``."""
    pattern = re.compile(rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->",
                         re.DOTALL)
    if not pattern.search(page):
        raise SystemExit(f"benchmarks: the page has no block for section {name!r}")
    return pattern.sub(lambda _: block, page, count=1)


def write(path: Path, text: str) -> None:
    """Replace ``path`` whole or not at all (a stopped run leaves the page as it was)."""
    part = path.with_name(path.name + ".part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", action="append", metavar="SECTION",
                   choices=[s.name for s in SECTIONS], help="measure this section (repeatable)")
    p.add_argument("--out", type=Path, help="replace the measured sections' blocks in this page")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply every game and decision count (e.g. 0.05 for a quick try)")
    p.add_argument("--list", action="store_true", help="list the sections and stop")
    args = p.parse_args(argv)
    if args.list:
        for s in SECTIONS:
            print(f"{s.name:12} {'speed' if s.needs_quiet else 'strength'}: {s.title}")
        return 0
    chosen = [s for s in SECTIONS if args.only is None or s.name in args.only]
    page = args.out.read_text(encoding="utf-8") if args.out is not None else None
    for section in chosen:
        print(f"benchmarks: measuring {section.name} ...", file=sys.stderr, flush=True)
        block = measure(section, args.scale)
        if page is None:
            print(block + "\n")
        else:
            page = replace(page, section.name, block)
            write(args.out, page)  # each section kept as soon as it is measured
    return 0


if __name__ == "__main__":
    sys.exit(main())
