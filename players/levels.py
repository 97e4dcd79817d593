"""CPU levels a person can feel: ``easy``, ``medium`` and ``strong``, each a bundled bot.

One small mapping for every front end (``daihinmin play --level``, the browser game):

>>> from daihinmin.rules.ruleset import APP, THIRTEENTH_FLOOR, UECDA, WEB
>>> [level_for(name, UECDA).bot for name in LEVELS], level_for("strong", WEB).bot
(['random', 'default', 'mc'], 'mc')
>>> level_for("strong", APP).bot, level_for("strong", THIRTEENTH_FLOOR).bot
('mc', 'mc')
>>> level_for("strong", UECDA.with_rules(sequence_min=6)).bot  # rules mc does not simulate
'weakest'
>>> level_for("hard", UECDA)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
daihinmin.players.levels.UnknownLevelError: no CPU level 'hard'; levels: easy, medium, strong

- ``easy``: ``random``, a uniformly random legal move (the weakest bundled bot at every
  preset);
- ``medium``: ``default``, the UECda sample client (about an average seat among its own
  kind at every preset);
- ``strong``: ``mc`` with :data:`STRONG_MOVE_MS` of thinking per move where its simulator
  plays the rules exactly (:func:`~daihinmin.players.mc.observe.simulator_supports`: every
  preset at 3 to 6 players with one or two jokers, and most toggles), else ``weakest``, the
  strongest simple bot at the other rules (:attr:`Level.note` says that it stands in for
  ``mc``).

The order was measured with one bot against a table of the others (``docs/LEVELS.md``).

Every level's time per move is bounded: the simple bots answer at once, ``mc`` keeps every
phase of a decision (sampling, the root solver, the search) to one deadline ``time_ms`` after
it starts (:mod:`~daihinmin.players.mc.deadline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from daihinmin.contract.view import Bot
from daihinmin.rules.ruleset import RuleSet

from .registry import make_bot

LEVELS = ("easy", "medium", "strong")
#: the browser menu's names for the same levels
ALIASES = {"beginner": "easy", "intermediate": "medium", "advanced": "strong"}
STRONG_MOVE_MS = 500.0  # mc's thinking time per decision at the strong level


class UnknownLevelError(LookupError):
    """No CPU level of that name."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Level:
    """A CPU level at one rule set: which registered bot, with which options."""

    name: str
    bot: str  # a name in :mod:`~daihinmin.players.registry`
    options: dict[str, Any] = field(default_factory=dict)
    move_ms: float = 0.0  # the bot's thinking budget per decision (0: answers at once)
    note: str = ""  # what a person should know (e.g. a stand-in for mc)

    @property
    def label(self) -> str:
        """How a seat of this level is shown, e.g. ``strong (mc)``."""
        return f"{self.name} ({self.bot})"


def _mc_gaps(rules: RuleSet) -> list[str]:
    from .mc.observe import simulator_gaps  # imports Numba: only when asked

    return simulator_gaps(rules)


def level_for(name: str, rules: RuleSet) -> Level:
    """The bot behind CPU level ``name`` (or its alias) at ``rules``."""
    name = ALIASES.get(name, name)
    if name not in LEVELS:
        raise UnknownLevelError(f"no CPU level {name!r}; levels: {', '.join(LEVELS)}")
    if name == "easy":
        return Level(name, "random")
    if name == "medium":
        return Level(name, "default")
    gaps = _mc_gaps(rules)
    if not gaps:
        return Level(name, "mc", {"time_ms": STRONG_MOVE_MS}, STRONG_MOVE_MS)
    shown = ", ".join(gaps[:3]) + (", ..." if len(gaps) > 3 else "")
    return Level(name, "weakest",
                 note=f"mc does not simulate the {rules.name} rules yet ({shown}): the "
                      "strongest simple bot (weakest) plays the strong level")


def make_level_bot(name: str, rules: RuleSet, seed: int | None = None) -> Bot:
    """A new bot of CPU level ``name`` for a table with ``rules``."""
    level = level_for(name, rules)
    return make_bot(level.bot, seed=seed, **level.options)


__all__ = ["ALIASES", "LEVELS", "STRONG_MOVE_MS", "Level", "UnknownLevelError", "level_for",
           "make_level_bot"]

