"""CPU levels a person can feel: ``easy``, ``medium`` and ``strong``, each a bundled bot.

One small mapping for every front end (``daihinmin play --level``, the browser game):

>>> from daihinmin.rules.ruleset import UECDA, WEB
>>> [level_for(name, UECDA).bot for name in LEVELS]
['random', 'default', 'mc']
>>> level_for("strong", WEB).bot  # mc does not simulate the web rules yet
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
  plays the rules exactly (:func:`~daihinmin.players.mc.observe.simulator_supports`, today
  the ``uecda`` play rules), else ``weakest``, the strongest simple bot at the other presets
  (:attr:`Level.note` says that it stands in for ``mc``).

The order was measured with one bot against a table of the others (``docs/LEVELS.md``).

Every level's time per move is bounded: the simple bots answer at once, ``mc`` stops its
search at ``time_ms`` (sampling included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from daihinmin.client.view import Bot
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


def seat_mean_place(rules: RuleSet, bot: str, field: str, games: int,
                    seed: int = 5) -> tuple[float, float]:
    """Mean place (0 = first) of one ``bot`` in seat 0 against ``field`` bots in every other
    seat over ``games`` games, and the half-width of its 95% interval (games taken as
    independent): how the level order was measured."""
    import statistics

    from daihinmin.tools.local_match import play_local_match

    places: list[int] = []
    bots = [make_bot(bot, seed=1)] + [make_bot(field, seed=p) for p in range(2, rules.players + 1)]
    play_local_match(rules, seed=seed, games=games, bots=bots,
                     on_game=lambda r: places.append(r.result.places[0]))  # type: ignore[union-attr]
    half = 1.96 * statistics.stdev(places) / len(places) ** 0.5 if len(places) > 1 else 0.0
    return statistics.fmean(places), half


if __name__ == "__main__":  # python -m daihinmin.players.levels PRESET BOT FIELD GAMES
    import sys

    from daihinmin.rules.ruleset import preset

    name, hero, others, count = sys.argv[1:5]
    mean, half = seat_mean_place(preset(name), hero, others, int(count))
    print(f"{name}: {hero} against {others}: mean place {mean:.2f} ± {half:.2f} "
          f"(0 = first) over {count} games")
