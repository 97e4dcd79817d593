"""Run the doctested examples of the server package."""

import doctest
import importlib

import pytest

MODULES = [
    "daihinmin.server.handshake",
    "daihinmin.server.matchlog",
    "daihinmin.server.standings",
]


@pytest.mark.parametrize("name", MODULES)
def test_server_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no doctest"
    assert result.failed == 0
