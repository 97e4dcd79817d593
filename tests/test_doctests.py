"""Run the doctested examples of the public modules."""

import doctest
import importlib

import pytest

MODULES = [
    "daihinmin.protocol.cards",
    "daihinmin.protocol.moves",
    "daihinmin.protocol.shapes",
    "daihinmin.protocol.table",
    "daihinmin.protocol.codec",
    "daihinmin.rules.ruleset",
    "daihinmin.rules.movegen",
    "daihinmin.rules.game",
    "daihinmin.rules.deal",
    "daihinmin.rules.match",
    "daihinmin.players.util",
    "daihinmin.tools.local_match",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no doctest"
    assert result.failed == 0
