"""A start of mc says "compiling" only when Numba's cache cannot give it the code: asked of
Numba's real cache in fresh processes (one tiny function compiled, not the simulator)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TINY = '''
from numba import njit


@njit(cache=True)
def add_one(x):
    return x + 1
'''

PROBE = '''
import sys
from daihinmin.players.mc.compile_cache import _codegen, cached_functions, is_cached
sys.path.insert(0, sys.argv[1])
import tiny
f = cached_functions(tiny)["add_one"]
before = is_cached(f, _codegen())
if sys.argv[2] == "call":
    f(1)
print(before, is_cached(f, _codegen()))
'''

START = '''
import sys
from daihinmin.players.mc import CACHE_DIR
from daihinmin.players.mc.compile_cache import compile_needed, record_warm
print(compile_needed())
if sys.argv[1] == "warm":
    from daihinmin.players.mc.bits import columns
    columns(3, 5)
    record_warm()
    print(compile_needed())
'''


def python(code: str, *args: str, cache: Path) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}  # not this checkout's mc cache
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=240)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.timeout(300)
def test_is_cached_asks_numbas_index_of_these_sources(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(TINY)
    cache = tmp_path / "cache"
    assert python(PROBE, str(tmp_path), "call", cache=cache) == ["False", "True"]
    assert python(PROBE, str(tmp_path), "look", cache=cache) == ["True", "True"]
    with (tmp_path / "tiny.py").open("a") as f:  # an edited source: the index is stale
        f.write("# edited\n")
    assert python(PROBE, str(tmp_path), "look", cache=cache) == ["False", "False"]


@pytest.mark.timeout(300)
def test_a_start_after_a_warm_up_needs_no_compile_and_a_gap_is_one(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert python(START, "warm", cache=cache) == ["True", "False"]  # none yet, then warm
    assert python(START, "look", cache=cache) == ["False"]  # a new process: loads, says so
    (manifest,) = cache.glob("numba-*/warmed-functions.txt")
    assert manifest.read_text().split() == ["daihinmin.players.mc.bits:columns"]
    manifest.write_text("daihinmin.players.mc.bits:cards_above\n")  # never compiled
    assert python(START, "look", cache=cache) == ["True"]
    manifest.unlink()
    assert python(START, "look", cache=cache) == ["True"]


@pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled (and listed) once a session;
# its generous timeout too
def test_a_start_after_the_warm_up_announces_no_compile() -> None:
    code = ("from daihinmin.players.prepare import prepare_kinds\n"
            "from daihinmin.players.registry import prepare_notice\n"
            "print(prepare_notice('mc'))\n"
            "prepare_kinds(['mc'], 'daihinmin play')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None"]  # the real cache of this checkout: it loads
    assert "compiling" not in done.stderr, done.stderr
