"""The rule set of an environment: a preset name (or a rule set), a table size, overrides."""

from __future__ import annotations

from collections.abc import Sequence

from daihinmin.rules.ruleset import RuleSet, ruleset_from


def resolve_rules(rules: str | RuleSet = "uecda", players: int | None = None,
                  rule_overrides: Sequence[str] = ()) -> RuleSet:
    """A rule set from a preset name (or a rule set), a table size and ``KEY=VALUE``
    overrides (:class:`~daihinmin.rules.ruleset.RuleConfigError` when they are not valid)."""
    if isinstance(rules, RuleSet):
        if rule_overrides:
            raise ValueError("rule overrides go with a preset name, not a RuleSet")
        return (rules if players is None else rules.with_rules(players=players)).validate()
    overrides = list(rule_overrides)
    if players is not None:
        overrides.append(f"players={players}")
    return ruleset_from(rules, overrides)


__all__ = ["resolve_rules"]
