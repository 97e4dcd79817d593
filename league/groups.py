"""``format = "uecda-groups"``: the UECda contest's format.

Round 1 splits the active entrants (in the order they entered) into groups of ``size``; each
group plays one match of ``games`` games; the best ``advance`` of each group by points (ties:
the better place in the match's last game, as every standings table does) go on to the next
round.  A short group is filled with copies of the ``filler`` house bot, which never advances.
When one group is left it plays the final, and the league stops.

The rounds live in the database (each match's ``round`` and ``grp``), so a stopped league
resumes mid-round: done groups stay done, the others are played.  A group match that failed
(a stand-in had to play) is played again; an entrant suspended meanwhile gives its seat to
the filler.

>>> split([1, 2, 3, 4, 5, 6, 7], 5)
[[1, 3, 5, 7], [2, 4, 6]]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from daihinmin.rules.scoring import outcome_key
from daihinmin.tournament.schedule import derive_seed

from .source import MatchSource

if TYPE_CHECKING:
    from .loop import League

FILLER_VERSION = "filler"


def split(entrants: list[int], size: int) -> list[list[int]]:
    """Groups of at most ``size``, dealt in turn (the first to the first group, ...)."""
    count = max(1, math.ceil(len(entrants) / size))
    return [entrants[g::count] for g in range(count)]


class GroupsSource(MatchSource):
    cancels_unplayable = False

    def __init__(self, league: League) -> None:
        super().__init__(league)
        self.final_done = False

    def filler(self) -> int:
        lg = self.league
        bot = lg.cfg.groups.filler
        name = f"filler-{bot}"[:15]
        for e in lg.store.entrants():
            if e.name == name and e.version == FILLER_VERSION:
                return e.id
        return lg.store.add_entrant(name, FILLER_VERSION, "house", None,
                                    f"filler:{bot}", {"bot": bot}, status="filler")

    def rounds(self) -> dict[int, list[tuple[int, tuple[int, ...], str]]]:
        """round -> [(group, lineup, status)] of its newest match per group."""
        out: dict[int, dict[int, tuple[int, tuple[int, ...], str]]] = {}
        for status in ("done", "failed", "pending", "running", "cancelled"):
            for m in self.league.store.matches(status):
                if m.round is None or m.group is None:
                    continue
                grp = out.setdefault(m.round, {})
                if m.group not in grp or m.status == "done":
                    grp[m.group] = (m.group, m.lineup, m.status)
        return {r: sorted(g.values()) for r, g in out.items()}

    def advancers(self, match_id: int) -> list[int]:
        lg = self.league
        row = lg.store.match(match_id)
        filler = self.filler()
        totals = [0] * len(row.lineup)
        last = [0] * len(row.lineup)
        for player, points in lg.store.con.execute(
                "SELECT player, SUM(points) FROM results WHERE match_id = ? GROUP BY player",
                (match_id,)):
            totals[player] = int(points)
        for player, place in lg.store.con.execute(
                "SELECT player, place FROM results WHERE match_id = ? AND game = ?",
                (match_id, row.games)):
            last[player] = int(place)
        rules = lg.cfg.ruleset()
        order = sorted(range(len(row.lineup)),
                       key=lambda p: outcome_key(rules, totals[p], last[p], p))
        out: list[int] = []
        for p in order:
            e = row.lineup[p]
            if e != filler and e not in out:
                out.append(e)
        return out[:lg.cfg.groups.advance]

    def new_match(self) -> int | None:
        lg = self.league
        if self.final_done:
            return None
        rounds = self.rounds()
        size = lg.cfg.groups.size
        filler = self.filler()
        if not rounds:
            entrants = [e.id for e in lg.active() if e.id != filler]
            if len(entrants) < 2:
                return None
            return self.start_round(1, split(entrants, size))
        r = max(rounds)
        groups = rounds[r]
        by_id = {e.id: e for e in lg.store.entrants()}
        for g, lineup, status in groups:
            if status == "failed":  # played again; a suspended entrant's seat to the filler
                seats = [e if by_id[e].status in ("active", "filler") else filler
                         for e in lineup]
                return lg.store.new_match(derive_seed(lg.cfg.seed, "groups", r, g, "again",
                                                      len(groups)),
                                          lg.cfg.groups.games, seats, r, g)
        if any(status != "done" for _, _, status in groups):
            return None  # the round is still being played
        if len(groups) == 1:
            self.final_done = True
            return None
        advancing = [e for (g, _, _) in groups
                     for e in self.advancers(self.done_match(r, g))]
        return self.start_round(r + 1, split(advancing, size))

    def done_match(self, round_: int, group: int) -> int:
        row = self.league.store.con.execute(
            "SELECT id FROM matches WHERE round = ? AND grp = ? AND status = 'done'",
            (round_, group)).fetchone()
        return int(row[0])

    def start_round(self, round_: int, groups: list[list[int]]) -> int:
        lg = self.league
        size = lg.cfg.groups.size
        filler = self.filler()
        first = None
        for g, members in enumerate(groups):
            lineup = members + [filler] * (size - len(members))
            mid = lg.store.new_match(derive_seed(lg.cfg.seed, "groups", round_, g),
                                     lg.cfg.groups.games, lineup, round_, g)
            first = mid if first is None else first
        lg.store.event(None, f"round {round_}: {len(groups)} group(s)"
                       + (" (the final)" if len(groups) == 1 else ""))
        assert first is not None
        lg.signal_change()
        # the round's matches are pending now; the caller plays the first, other tables
        # take the rest from the pending list
        return first

    def finished(self) -> str | None:
        if self.final_done:
            return "the final is played"
        rounds = self.rounds()
        if rounds:
            r = max(rounds)
            groups = rounds[r]
            if len(groups) == 1 and groups[0][2] == "done":
                self.final_done = True
                return "the final is played"
        return None


__all__ = ["GroupsSource", "split"]
