"""The sequential test of a two-participant tournament (``sprt`` in its config).

One observation per deal set (a round: every table and rotation of one match seed), taken
in schedule order once all its matches are done: the second participant's mean points per
seat-game minus the first's.  The rotations give both the same deals, so the luck of the
deal cancels in the difference; a deal set's mean over many games is close to normal, the
test's model (:mod:`daihinmin.tournament.sprt`).  The dispatcher stops the run as soon as
the test decides; the report gives the verdict, the LLR trace, the deal sets and games the
test used, and the interval of the difference.
"""

from __future__ import annotations

from typing import Any

from .config import TournamentConfig
from .sprt import Sprt, SprtHypotheses
from .store import TournamentStore


class SprtMonitor:
    """The test over the stored deal sets; :meth:`update` after each finished match."""

    def __init__(self, store: TournamentStore, cfg: TournamentConfig) -> None:
        assert cfg.sprt is not None
        rules = cfg.ruleset()
        points = [rules.points_for_place(p) for p in range(rules.players)]
        self.store = store
        self.test = Sprt(SprtHypotheses(*cfg.sprt), "normal",
                         bound=float(max(points) - min(points)))
        self.deal_sets = store.deal_sets()
        self.used_sets = 0
        self.games_used = 0
        self.update()

    @property
    def verdict(self) -> str | None:
        return self.test.verdict

    def update(self) -> str | None:
        """Feed every deal set that is complete, in order, until one is not (or a verdict)."""
        while self.test.verdict is None and self.used_sets < self.deal_sets:
            got = self.store.deal_set_points(self.used_sets)
            if got is None:
                break
            a, b = (got.points.get(p, 0) / max(1, got.seat_games.get(p, 0)) for p in (0, 1))
            self.test.add(b - a)
            self.used_sets += 1
            self.games_used += got.games
        return self.test.verdict

    def report(self) -> dict[str, Any]:  # JSON
        out: dict[str, Any] = self.test.summary()
        out.update(text=self.test.verdict_text(), deal_sets_used=self.used_sets,
                   deal_sets=self.deal_sets, games_used=self.games_used)
        return out

    def lines(self, names: list[str]) -> list[str]:
        """The report in words (B is the second participant, A the first)."""
        from .sprt import thin

        r = self.report()
        lo, hi = r["ci95"]
        trace = "  ".join(f"{i + 1}:{v:+.2f}" for i, v in thin(self.test.trace, 12))
        return [f"SPRT {names[1]} - {names[0]}, H0 {r['d0']:+g} vs H1 {r['d1']:+g} points per "
                f"game (alpha {r['alpha']:g}, beta {r['beta']:g}): {r['text']}",
                f"  LLR {r['llr']:+.2f} in [{r['lower']:+.2f}, {r['upper']:+.2f}] after "
                f"{r['deal_sets_used']} of {r['deal_sets']} deal sets ({r['games_used']} "
                f"games); difference {r['mean']:+.3f} (95% CI {lo:+.3f}..{hi:+.3f})",
                f"  LLR trace (deal set:LLR): {trace or '-'}"]


__all__ = ["SprtMonitor"]
