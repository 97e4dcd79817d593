"""Shared test setup: hypothesis profiles, the ``slow`` marker and the mc compile fixture.

Helpers the tests import by name live beside this file (``games``: engine games in the rules
tests; ``modules``: every module of the packages; ``vectors``: the recorded test data;
``probe``: the checking wire client; ``seating``: seating clients of an in-process server in
order; ``late_client``: a Trio client whose replies go out late on Trio's clock;
``loopback``: server connections paired with client streams over real TCP);
``pyproject.toml`` puts this folder on the path.

Deadline tests: pytest-trio runs ``async def`` tests (``trio_mode``); one that takes the
``autojump_clock`` fixture runs on ``trio.testing.MockClock(autojump_threshold=0)``, where a
deadline passes as soon as every task waits, at once and to the exact second.  Only code in
that Trio run follows the mock clock: no threads or processes in such a test.

Hypothesis profiles (``HYPOTHESIS_PROFILE=NAME``): ``default`` (random examples, no
per-example deadline: the machine is shared), ``ci`` (the same, derandomized, so a run is
reproducible), ``thorough`` (5x the examples of tests that do not fix their own count).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("default", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.register_profile("thorough", deadline=None, print_blob=True, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")


@pytest.fixture(scope="session")
def mc_compiled() -> None:
    """The mc player's Numba functions, compiled (or loaded from the cache) once per
    session; modules that need them say ``pytestmark = pytest.mark.usefixtures(...)``."""
    from daihinmin.players.mc.bot import warm_up  # Numba loads only for the mc tests

    warm_up()
