"""Playout settings chosen per rule set: where the defaults of
:mod:`~daihinmin.players.mc.rollout` do not serve a table, the table's own values.

Kept out of the Numba modules: the settings are entries of the policy parameter vector, which
the bot builds once per rule set it meets (:meth:`~daihinmin.players.mc.bot.MCBot`), and the
options a person gives (``policy=...``) win over them.

>>> from daihinmin.rules.ruleset import UECDA
>>> table_policy(UECDA)
{}
"""

from __future__ import annotations

from daihinmin.rules.ruleset import RuleSet, Scoring

#: thirteenth_floor-style tables (card scoring, the game over at the first player out)
CARD_RACE_POLICY: dict[str, float] = {}


def table_policy(rules: RuleSet) -> dict[str, float]:
    """Policy parameter overrides (``rollout.PARAM_NAMES``) that serve ``rules``."""
    if rules.scoring is not Scoring.PLACE and rules.end_on_first_out:
        return dict(CARD_RACE_POLICY)
    return {}
