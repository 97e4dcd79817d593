"""Scores and standings: place points, the 13th floor card penalties, match tie-breaks,
and the class titles of each player count.

>>> from daihinmin.values.cards import CardSet
>>> from daihinmin.values.moves import Move
>>> from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, WEB
>>> hands = [CardSet(), CardSet.parse("S3 H4 JK"), CardSet.parse("D9 CK"), CardSet.parse("HA")]
>>> card_scores(THIRTEENTH_FLOOR, hands, 0, Move.parse("SK HK"))
(-260, 74, 33, 1)
>>> class_titles(WEB), class_titles(WEB.with_rules(players=3))
(('daifugo', 'fugo', 'hinmin', 'daihinmin'), ('fugo', 'heimin', 'hinmin'))
>>> standings(WEB, [5, 7, 5, 1], last_places=(2, 0, 1, 3))
[1, 2, 0, 3]
"""

from __future__ import annotations

from collections.abc import Sequence

from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

from .plays import face_value, hand_penalty
from .ruleset import RuleSet, Scoring, ThreeTitles

TITLES_JA = {"daifugo": "大富豪", "fugo": "富豪", "heimin": "平民", "hinmin": "貧民",
             "daihinmin": "大貧民", "1st": "1位", "2nd": "2位", "3rd": "3位"}


def class_titles(rules: RuleSet) -> tuple[str, ...]:
    """The title of each finishing place (romanised; ``TITLES_JA`` has the Japanese)."""
    n = rules.players
    if n == 3:
        return {ThreeTitles.DAIFUGO: ("daifugo", "heimin", "daihinmin"),
                ThreeTitles.FUGO: ("fugo", "heimin", "hinmin"),
                ThreeTitles.PLACES: ("1st", "2nd", "3rd")}[rules.titles_3p]
    middle = ("heimin",) * (n - 4)
    return ("daifugo", "fugo", *middle, "hinmin", "daihinmin")


def class_title(rules: RuleSet, place: int) -> str:
    """The title of finishing place ``place`` (0 = first): its class, or ``#N`` where the
    rules score by cards (no classes) or the place is out of range.

    >>> from daihinmin.rules.ruleset import UECDA, preset
    >>> class_title(UECDA, 2), class_title(preset("thirteenth_floor"), 0), class_title(UECDA, 7)
    ('heimin', '#1', '#8')
    """
    titles = class_titles(rules) if rules.scoring is Scoring.PLACE else ()
    return titles[place] if 0 <= place < len(titles) else f"#{place + 1}"


def card_scores(rules: RuleSet, hands: Sequence[CardSet], winner: int | None,
                winning_play: Move | None) -> tuple[int, ...]:
    """13th floor scores (lower is better): the cards left in hand (joker 50, other role
    cards 20, others their number); the winner -10 x the numbers of the play it went out
    with, or with ``uno`` scoring minus the sum of the others (the scores sum to zero)."""
    scores = [hand_penalty(h) for h in hands]
    if winner is not None:
        if rules.scoring is Scoring.UNO:
            scores[winner] = -sum(s for p, s in enumerate(scores) if p != winner)
        else:
            play = winning_play.cards if winning_play is not None else CardSet()
            scores[winner] = -10 * sum(face_value(c) for c in play)
    return tuple(scores)


def lower_is_better(rules: RuleSet) -> bool:
    return rules.scoring is not Scoring.PLACE


def outcome_key(rules: RuleSet, total: int, last_place: int, player: int
                ) -> tuple[int, int, int]:
    """Where a player ranks in a match's outcome, lowest first: by match total (more points,
    or fewer penalty points under card scoring), ties broken by the better place in the last
    game (the web document's rule, the only one any of the documents gives, so every preset
    takes it: docs/RULES.md), then by player number (needed only before any game).

    Every place that shows a match's outcome ranks with this key: :func:`standings` (the
    engine's, the terminal game, the browser) and the command line's standings."""
    return (total if lower_is_better(rules) else -total, last_place, player)


def standings(rules: RuleSet, totals: Sequence[int], last_places: Sequence[int]
              ) -> list[int]:
    """Players best first (:func:`outcome_key`)."""
    return sorted(range(len(totals)),
                  key=lambda p: outcome_key(rules, totals[p], last_places[p], p))


__all__ = ["TITLES_JA", "card_scores", "class_title", "class_titles", "lower_is_better",
           "outcome_key", "standings"]
