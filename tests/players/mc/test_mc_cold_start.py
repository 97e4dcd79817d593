"""The warm-up covers every Numba function a decision runs, with the argument types it runs
them with: after ``warm_up()`` no decision adds a signature to any dispatcher, so the first
decision after a seat is taken never pays a compile (seconds on a loaded machine; the root
solver's first two-player position paid 2-3 s before the warm-up played one).

In a fresh process (what a server, the terminal game or the browser starts with): earlier
tests of this session may have compiled signatures the warm-up lacks.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.usefixtures("mc_compiled")  # the cache is filled before the child

CHILD = r"""
import importlib, json, pkgutil
import daihinmin.players.mc as pkg
from daihinmin.players.mc.bot import MCBot, warm_up
from daihinmin.players.mc.models import MODEL_WEAKEST
from daihinmin.rules.ruleset import APP, ORIGINAL, UECDA, WEB
from daihinmin.bench.mc import sample_positions

def signatures():
    out = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for name, obj in vars(mod).items():
            if hasattr(obj, "py_func") and getattr(obj, "__module__", "") == mod.__name__:
                out[f"{info.name}.{name}"] = len(obj.signatures)
    return out

warm_up()
before = signatures()
views = {r.name: sample_positions(8, seed=5, rules=r) for r in (UECDA, WEB, APP, ORIGINAL)}
for rules_views in views.values():
    timed, capped = MCBot(time_ms=40, seed=1), MCBot(time_ms=0, playouts=40, seed=1)
    learned = MCBot(time_ms=40, seed=1)
    learned.models[:] = MODEL_WEAKEST  # local scoring and refinement of the worlds
    for view in rules_views:
        for bot in (timed, capped, learned):
            bot.play(view)
two = [v for v in sample_positions(60, seed=5, rules=WEB) if sum(map(bool, v.counts)) == 2]
for view in two[:2]:
    MCBot(time_ms=200, seed=1).play(view)
after = signatures()
print(json.dumps({k: [before.get(k, 0), n] for k, n in after.items() if n != before.get(k, 0)}))
"""


def test_decisions_after_the_warm_up_compile_nothing() -> None:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         timeout=600, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}
