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
    "daihinmin.players.registry",
    "daihinmin.players.mc.fit",
    "daihinmin.client.tables",
    "daihinmin.client.protocol",
    "daihinmin.client.sync_runner",
    "daihinmin.server.handshake",
    "daihinmin.server.matchlog",
    "daihinmin.server.standings",
    "daihinmin.tools.cmd_bot",
    "daihinmin.tools.local_match",
    "daihinmin.tools.duplicate",
    "daihinmin.tools.mc_strength",
    "daihinmin.tools.parallel",
    "daihinmin.tools.tournament.config",
    "daihinmin.tools.tournament.schedule",
    "daihinmin.tools.tournament.store",
    "daihinmin.tools.tournament.stats",
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no doctest"
    assert result.failed == 0
