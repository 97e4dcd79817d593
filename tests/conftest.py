"""Shared test setup: hypothesis profiles, the ``slow`` marker and the mc compile fixture.

mc's Numba code takes minutes of one core to compile from an empty cache.  Under xdist the
controller starts that compile in a background process at once (holding a lock file), the
workers run every other test meanwhile (the tests that need mc are collected last), and a
worker's ``mc_compiled`` waits for the lock and loads the cache: one compile per run, not one
per worker, and none on the critical path.  ``.ci/run`` starts that compile earlier still,
beside ruff and mypy, and passes its lock in the same variable: the controller then starts
none.

The tests mirror the packages: ``tests/<package>/test_*.py`` tests ``daihinmin.<package>``
(``tests/players/mc`` the Monte Carlo player); the tests of the whole project (imports and
layers, public names, doctests, the development commands) are beside this file.  Helpers the
tests import by name live in ``tests/support`` (``games``: engine games in the rules tests;
``modules``: every module of the packages; ``vectors``: the recorded test data and where
things are; ``probe``: the checking wire client; ``seating``: seating clients of an
in-process server in order; ``late_client``: a Trio client whose replies go out late on
Trio's clock; ``loopback``: server connections paired with client streams over real TCP;
``processes``: what is left running; ``scripted_person``: a person at the human seat;
``witness``: bots that record what the client library shows them; ``webapp``: a real
``daihinmin web`` process); ``pyproject.toml`` puts
that folder on the path.

Deadline tests: pytest-trio runs ``async def`` tests (``trio_mode``); one that takes the
``autojump_clock`` fixture runs on ``trio.testing.MockClock(autojump_threshold=0)``, where a
deadline passes as soon as every task waits, at once and to the exact second.  Only code in
that Trio run follows the mock clock: no threads or processes in such a test.

Hypothesis profiles (``HYPOTHESIS_PROFILE=NAME``): ``default`` (random examples, no
per-example deadline: the machine is shared), ``ci`` (the same, derandomized, so a run is
reproducible), ``thorough`` (5x the examples of tests that do not fix their own count).
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("default", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.register_profile("thorough", deadline=None, print_blob=True, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


COMPILE_LOCK = "DAIHINMIN_TEST_MC_COMPILE_LOCK"  # set by the xdist controller for its workers
# The background compile: mc's Numba code, then the research environments' (which call it).
WARM_UP = ("from daihinmin.players.mc.bot import warm_up; warm_up(); "
           "from daihinmin.env.batched import warm_up; warm_up()")
_compile: subprocess.Popen[bytes] | None = None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")
    if (getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput")
            and COMPILE_LOCK not in os.environ):  # .ci/run starts it before ruff and mypy
        _start_compile()


def _start_compile() -> None:
    """Compile mc in a background process holding an exclusive lock on a fresh file; the
    workers (started after this, so they inherit the variable) wait on that lock."""
    global _compile
    fd, lock = tempfile.mkstemp(prefix="daihinmin-mc-compile-")
    fcntl.flock(fd, fcntl.LOCK_EX)  # the child inherits the open file, and with it the lock
    log = open(lock + ".log", "wb")  # noqa: SIM115 (the child writes it; closed below)
    try:
        _compile = subprocess.Popen(
            [sys.executable, "-c", WARM_UP],
            pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    finally:
        os.close(fd)  # the lock stays held by the child until it exits
        log.close()
    os.environ[COMPILE_LOCK] = lock


def pytest_unconfigure(config: pytest.Config) -> None:
    if _compile is not None:
        if _compile.poll() is None:  # the run ended first (deselected, interrupted)
            _compile.kill()
        _compile.wait()
        lock = Path(os.environ.pop(COMPILE_LOCK))
        Path(str(lock) + ".log").unlink(missing_ok=True)
        lock.unlink(missing_ok=True)


#: A test that needs mc may be the one that waits for its compile (minutes of one core from
#: an empty cache, many more on a busy machine): its time limit covers that wait.
MC_TIMEOUT = 1800


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that need mc run last, so the background compile is done by then (a stable
    sort: each group keeps its order, and every worker collects the same list)."""
    items.sort(key=lambda item: "mc_compiled" in getattr(item, "fixturenames", ()))
    for item in items:
        if ("mc_compiled" in getattr(item, "fixturenames", ())
                and item.get_closest_marker("timeout") is None):
            item.add_marker(pytest.mark.timeout(MC_TIMEOUT))


@pytest.fixture(scope="session")
def mc_compiled() -> None:
    """The mc player's Numba functions, compiled (or loaded from the cache) once per
    session; modules that need them say ``pytestmark = pytest.mark.usefixtures(...)``."""
    lock = os.environ.get(COMPILE_LOCK)
    if lock and Path(lock).exists():
        with open(lock, "rb") as held:  # wait for the controller's compile to finish
            fcntl.flock(held, fcntl.LOCK_SH)
    from daihinmin.players.mc.bot import warm_up  # Numba loads only for the mc tests

    warm_up()  # loads what the background compile cached (or compiles, if it failed)


@pytest.fixture(scope="session")
def env_compiled(mc_compiled: None) -> None:
    """The research environments' Numba functions (daihinmin.env: the Numba matches, the
    batched environment), compiled or loaded once per session, after mc's."""
    from daihinmin.env.batched import warm_up

    warm_up()


@pytest.fixture(autouse=True)
def _logger_levels_restored() -> Iterator[None]:
    """Code run in the test process may set the level of a project logger (a run's worker
    quiets the server's warnings); a later test on the same worker that reads them must not
    depend on which tests ran before it."""
    def ours() -> list[str]:
        return [name for name in list(logging.Logger.manager.loggerDict)
                if name.startswith("daihinmin")]

    levels = {name: logging.getLogger(name).level for name in ours()}
    yield
    for name in ours():
        logging.getLogger(name).setLevel(levels.get(name, logging.NOTSET))
