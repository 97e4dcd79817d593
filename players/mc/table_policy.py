"""Playout settings chosen per rule set: where the defaults of
:mod:`~daihinmin.players.mc.rollout` do not serve a table, the table's own values.

Kept out of the Numba modules: the settings are entries of the policy parameter vector, which
the bot builds once per rule set it meets (:class:`~daihinmin.players.mc.bot.MCBot`), and the
options a person gives (``policy=...``) win over them.

>>> from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, UECDA
>>> table_policy(UECDA)
{}
>>> table_policy(THIRTEENTH_FLOOR)
{'first': 0.6, 'place': 0.4}
"""

from __future__ import annotations

from daihinmin.rules.ruleset import RuleSet, Scoring

#: thirteenth_floor-style tables (card scoring, the game over at the first player out): the
#: playout's value is 0.6 x "went out first" + 0.4 x the place, not the card score.  Valuing
#: the score alone, mc played for a big last play (the winner scores -10 x its face values)
#: and came first less often than valuing going out first.  What mc reaches with this mix
#: is in docs/BENCHMARKS.md ("mc's strength", the ``thirteenth_floor`` row).
CARD_RACE_POLICY: dict[str, float] = {"first": 0.6, "place": 0.4}


def table_policy(rules: RuleSet) -> dict[str, float]:
    """Policy parameter overrides (``rollout.PARAM_NAMES``) that serve ``rules``."""
    if rules.scoring is not Scoring.PLACE and rules.end_on_first_out:
        return dict(CARD_RACE_POLICY)
    return {}
