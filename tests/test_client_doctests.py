"""Run the doctested examples of the client library and the players."""

import doctest
import importlib

import pytest

MODULES = [
    "daihinmin.client.tables",
    "daihinmin.client.protocol",
    "daihinmin.client.sync_runner",
    "daihinmin.players.registry",
    "daihinmin.players.util",
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no doctest"
    assert result.failed == 0
