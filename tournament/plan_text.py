"""What a tournament will play, and why, in one line (said before it starts and in the report).

A tournament plays whole rounds (every table of a round in every seat rotation), so the games
asked are rounded up, unless ``games_exact``: then the last round is cut short.

>>> from daihinmin.tournament.config import Participant, TournamentConfig
>>> three = tuple(Participant(n, bot="random") for n in "abc")
>>> plan_text(TournamentConfig(three, games=30), 150)
'Playing 150 games, not 30: whole rounds keep the seats fair, and a round is 3 tables x
 5 seat rotations x 10 games = 150; for exactly 30: --games-per-match 2, or --games-exact'
>>> plan_text(TournamentConfig(three, games=30, games_exact=True), 30)
'Playing exactly 30 games (--games-exact): the last round is cut short: its 15 matches
 play 2 games each, not 10; every table and seat rotation still plays'
>>> plan_text(TournamentConfig(three, games=300), 300)
'Playing 300 games: 2 rounds of 3 tables x 5 seat rotations x 10 games'
"""

from __future__ import annotations

from daihinmin.values.words import counted

from .config import TournamentConfig
from .schedule import spread, tables_per_round


def plan_text(cfg: TournamentConfig, planned: int) -> str:
    """The games ``cfg`` plays (``planned``: the schedule's total) and why, in one line."""
    text = _plan_text(cfg, planned)
    if cfg.sprt is not None:
        text += "; the sequential test (--sprt) may stop sooner"
    return text


def _plan_text(cfg: TournamentConfig, planned: int) -> str:
    names = [p.name for p in cfg.participants]
    hero = None if cfg.hero is None else names.index(cfg.hero)
    seats = cfg.ruleset().players
    tables = tables_per_round(len(names), seats, hero, cfg.schedule)
    rotations = seats if cfg.duplicate else 1
    per_match, asked = cfg.games_per_match, cfg.games
    matches = tables * rotations
    round_games = matches * per_match
    shape = (f"{counted(tables, 'table')} x {counted(rotations, 'seat rotation')} x "
             f"{counted(per_match, 'game')}")
    if asked % round_games == 0 and planned == asked:
        return f"Playing {counted(planned, 'game')}: {counted(asked // round_games, 'round')} " \
               f"of {shape}"
    if not cfg.games_exact:
        hint = "--games-exact"
        if asked % matches == 0 and asked < round_games:
            hint = f"--games-per-match {asked // matches}, or --games-exact"
        return (f"Playing {counted(planned, 'game')}, not {asked:,}: whole rounds keep the "
                f"seats fair, and a round is {shape} = {round_games:,}; for exactly {asked:,}: "
                f"{hint}")
    return (f"Playing exactly {counted(asked, 'game')} (--games-exact): the last round is cut "
            f"short: {cut_round_text(spread(asked % round_games, matches), matches, per_match)}")


def cut_round_text(lengths: list[int], matches: int, per_match: int) -> str:
    """The matches of the round cut short, and what that does to the seats' fairness."""
    shortest, longest = min(lengths), max(lengths)
    if len(lengths) < matches:
        return (f"only {len(lengths)} of its {matches} matches play ({counted(longest, 'game')} "
                "each), so the seats are not balanced")
    if shortest == longest:
        return (f"its {matches} matches play {counted(longest, 'game')} each, not {per_match}; "
                "every table and seat rotation still plays")
    return (f"its {matches} matches play {shortest} or {longest} games, not {per_match}, so the "
            "seats are nearly, not exactly, balanced")
