"""``daihinmin bench sandbox``: what the guard and ``--sandbox bwrap`` cost.

For each kind of player (the bundled ``default`` bot, and the native C client of
``bench tcp`` where ``cc`` is there), the same match (``--games``, seed) is played in the
headless runner with every player started plainly (``--sandbox none``: the guard and its
limits) and in bubblewrap (``bwrap``), the pairs back to back, ``--rounds`` times; the figures
are the medians: wall ms per game (players' start-up included, as a contest pays it) and CPU
ms per game of everything (the server in this process, and every guard, bwrap, the
sandbox's inner program and player, reaped).  Start-up: the median wall ms from starting a
player that exits at once (``true``) to its guard's report, and the same for a plain
``subprocess`` start of ``true`` (no guard), so the guard's and the sandbox's own start-up
show apart.  ``inner`` says which inner program the sandboxes ran (C, or the Python fallback
where there is no compiler).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from daihinmin.launch.inner_program import inner_program
from daihinmin.launch.process import LaunchOptions, PlayerSpec, run_player
from daihinmin.launch.sandbox import bwrap_path

from .tcp import compile_native, load

STARTS = 15


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def own_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def specs_for(kind: str, native: Path | None) -> list[PlayerSpec]:
    if kind == "native":
        assert native is not None
        return [PlayerSpec(f"native{i}", (str(native), "{host}", "{port}", f"native{i}"))
                for i in range(5)]
    return [PlayerSpec.bundled(kind) for _ in range(5)]


def play_once(kind: str, native: Path | None, sandbox: str, games: int, seed: int
              ) -> tuple[float, float]:
    """Wall and CPU seconds of one match."""
    import trio
    from daihinmin.server.config import ServerConfig, WriteMode
    from daihinmin.server.runner import run_headless_match

    config = ServerConfig(games=games, seed=seed, port=0, durable=False,
                          write_mode=WriteMode.EXACT)
    launch = LaunchOptions(sandbox=sandbox).check()
    cpu0, wall0 = own_cpu() + children_cpu(), time.perf_counter()
    outcome = trio.run(lambda: run_headless_match(config, specs_for(kind, native),
                                                  launch=launch))
    wall, cpu = time.perf_counter() - wall0, own_cpu() + children_cpu() - cpu0
    bad = [r for r in outcome.seats if not r.pristine]
    if bad or outcome.games_played != games:
        raise RuntimeError(f"{kind} ({sandbox}): a seat was not played by its own player: "
                           f"{bad[0].detail if bad else outcome.games_played}")
    return wall, cpu


def startup_ms(sandbox: str | None, starts: int = STARTS) -> float:
    """Median ms to start ``true`` and see it end: plainly (None) or under the guard."""
    import trio

    times = []
    for _ in range(starts):
        began = time.perf_counter()
        if sandbox is None:
            subprocess.run(["true"], check=True)
        else:
            # the sandbox listens on its own loopback (nobody takes it); true never connects
            result = trio.run(run_player, PlayerSpec("true", ("true",)), "127.0.0.1", 40999,
                              LaunchOptions(sandbox=sandbox))
            if result.returncode != 0:
                raise RuntimeError(f"true under {sandbox}: {result}")
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def bench_sandbox(args: argparse.Namespace) -> int:
    sandboxes = ["none"] + (["bwrap"] if bwrap_path() else [])
    out: dict[str, Any] = {"games": args.games, "rounds": args.rounds, "load_before": load()}
    if "bwrap" in sandboxes:
        out["inner"] = inner_program().describe()
    with tempfile.TemporaryDirectory() as folder:
        native = compile_native(Path(folder))
        kinds = ["default"] + (["native"] if native else [])
        for kind in kinds:
            runs: dict[str, list[tuple[float, float]]] = {s: [] for s in sandboxes}
            for r in range(args.rounds):
                for sandbox in sandboxes:
                    runs[sandbox].append(play_once(kind, native, sandbox, args.games,
                                                   args.seed + r))
            for sandbox, pairs in runs.items():
                out[f"{kind}:{sandbox}"] = {
                    "wall_ms_per_game": round(statistics.median(w for w, _ in pairs)
                                              / args.games * 1000, 2),
                    "cpu_ms_per_game": round(statistics.median(c for _, c in pairs)
                                             / args.games * 1000, 2)}
    out["startup_ms"] = {"plain": round(startup_ms(None), 1),
                         **{s: round(startup_ms(s), 1) for s in sandboxes}}
    out["load_after"] = load()
    if not bwrap_path():
        out["note"] = "bubblewrap is not installed: no bwrap figures"
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:<16} {value}")
    return 0


def register_bench_sandbox(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]
                           ) -> None:
    p = bench_sub.add_parser("sandbox", help="cost of the guard and --sandbox bwrap per game "
                                             "and per player start")
    p.add_argument("--games", type=int, default=100, help="games per match (default 100)")
    p.add_argument("--rounds", type=int, default=3, help="matches per kind and sandbox")
    p.add_argument("--seed", type=int, default=1, help="the first match's seed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=bench_sandbox)
