"""daihinmin.rules: the one pure rules engine (no I/O, no clock, one seeded RNG) and its presets.

Modules: ``ruleset`` (:class:`RuleSet`, every toggle, the presets ``UECDA``, ``WEB``, ``APP``,
``ORIGINAL``, ``THIRTEENTH_FLOOR``), ``match`` (:class:`MatchState`: deals, exchanges, points,
standings over a match), ``game`` (:class:`GameState`: one game's turns, judged), ``judge``,
``plays``, ``leads``, ``forbidden`` (what a play may beat, open or finish with), ``movegen``
(every legal play), ``choices`` (7-pass and 10-discard), ``deal``, ``events``, ``scoring``,
``extension_rules`` (the rule digest the 20260 wire carries).

>>> from daihinmin.rules import UECDA, MatchState
>>> game = MatchState(UECDA, seed=1, games=1).setup_game().start()
>>> len(game.hands), sum(len(h) for h in game.hands)
(5, 53)
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what __getattr__ gives, for the type checker (a user's too)
    from daihinmin.rules.choices import ChoiceKind, PendingChoice
    from daihinmin.rules.game import GameState, StepResult
    from daihinmin.rules.match import GameResult, GameSetup, MatchState
    from daihinmin.rules.movegen import all_plays
    from daihinmin.rules.ruleset import (
        APP,
        ORIGINAL,
        THIRTEENTH_FLOOR,
        UECDA,
        WEB,
        RuleConfigError,
        RuleSet,
        preset,
    )

# Each name is imported from its module on first use: importing one module of the
# rules (a bot process imports the rule set) does not import the whole engine.
_MODULES = {
    "choices": ("ChoiceKind", "PendingChoice"),
    "game": ("GameState", "StepResult"),
    "match": ("GameResult", "GameSetup", "MatchState"),
    "movegen": ("all_plays",),
    "ruleset": ("APP", "ORIGINAL", "RuleConfigError", "RuleSet", "THIRTEENTH_FLOOR", "UECDA", "WEB",
                "preset"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["APP", "ORIGINAL", "THIRTEENTH_FLOOR", "UECDA", "WEB", "ChoiceKind", "GameResult",
           "GameSetup", "GameState", "MatchState", "PendingChoice", "RuleConfigError",
           "RuleSet", "StepResult", "all_plays", "preset"]
