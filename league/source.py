"""Where a league's next match comes from: the ladder's pairing, or the groups format."""

from __future__ import annotations

from typing import TYPE_CHECKING

from daihinmin.tournament.schedule import derive_seed

from .pairing import choose_table

if TYPE_CHECKING:
    from .loop import League


class MatchSource:
    """Where new matches come from (the ladder's pairing, or the groups format)."""

    cancels_unplayable = True

    def __init__(self, league: League) -> None:
        self.league = league

    def new_match(self) -> int | None:
        raise NotImplementedError

    def match_done(self, match_id: int) -> None:
        pass

    def match_failed(self, match_id: int) -> None:
        pass

    def finished(self) -> str | None:
        return None


class LadderSource(MatchSource):
    """The ladder: a new match between entrants of close rating, whenever a table is free."""

    def new_match(self) -> int | None:
        lg = self.league
        active = [e.id for e in lg.pairable()]
        if len(active) < 2:
            return None
        seats = lg.cfg.table_size
        busy = {e for e, k in lg.busy.items() if k > 0}
        single = frozenset(e.id for e in lg.pairable() if e.kind == "lobby")
        lineup = choose_table(active, seats, lg.ratings, lg.matches_of, busy, lg.rng, single)
        if lineup is None:
            return None
        next_id = lg.store.count("SELECT COALESCE(MAX(id), 0) + 1 FROM matches")
        seed = derive_seed(lg.cfg.seed, "league", next_id)
        return lg.store.new_match(seed, lg.cfg.games_per_match, lineup)


__all__ = ["LadderSource", "MatchSource"]
