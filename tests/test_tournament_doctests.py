"""Run the doctested examples of the tournament modules."""

import doctest
import importlib

import pytest

MODULES = [
    "daihinmin.tools.tournament.config",
    "daihinmin.tools.tournament.schedule",
    "daihinmin.tools.tournament.store",
    "daihinmin.tools.tournament.stats",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no doctest"
    assert result.failed == 0
