"""A league restarted after a kill, its database made as the killed run left it (no process,
no socket, no timing): what the kill interrupted is finished by the restart."""

from __future__ import annotations

from pathlib import Path

from daihinmin.league.config import config_from_dict
from daihinmin.league.loop import League
from daihinmin.league.runner import InProcessRunner
from daihinmin.league.store import LeagueStore


def league_at(home: Path) -> tuple[League, LeagueStore]:
    cfg = config_from_dict({"house": ["random", "weakest", "greedy"], "crash_limit": 2,
                            "transport": "in-process"}, home)
    store = LeagueStore.open(cfg.database_path, cfg.fingerprint(), cfg.to_json())
    return League(cfg, store, InProcessRunner(), say=lambda _: None), store


def fail_through(store: LeagueStore, entrant: int, lineup: list[int]) -> None:
    """A match that failed because a stand-in played ``entrant``'s seat."""
    match = store.new_match(1, 2, lineup)
    attempt = store.match_started(match, None)
    store.record_faults(match, attempt, [(lineup.index(entrant), "CRASHED", {"CRASHED": 1},
                                          "fallback", "exited with code 3")])
    store.match_failed(match, "a stand-in played in game 1")


def test_a_suspension_the_killed_run_never_wrote_is_made_on_restart(tmp_path: Path) -> None:
    league, store = league_at(tmp_path)
    league.restore()
    ids = {e.name: e.id for e in store.entrants()}
    lineup = [ids["random"], ids["weakest"], ids["greedy"], ids["random"], ids["weakest"]]
    fail_through(store, ids["greedy"], lineup)
    fail_through(store, ids["greedy"], lineup)  # its second in a row: then the kill
    store.close()

    league, store = league_at(tmp_path)
    league.restore()
    status = {e.name: (e.status, e.reason) for e in store.entrants()}
    assert status["greedy"][0] == "suspended" and "2 matches in a row" in str(status["greedy"])
    assert status["random"][0] == status["weakest"][0] == "active"  # not their seats
    store.close()


def test_a_host_reinstatement_after_the_failures_stands_on_restart(tmp_path: Path) -> None:
    league, store = league_at(tmp_path)
    league.restore()
    ids = {e.name: e.id for e in store.entrants()}
    lineup = [ids["random"], ids["weakest"], ids["greedy"], ids["random"], ids["weakest"]]
    fail_through(store, ids["greedy"], lineup)
    fail_through(store, ids["greedy"], lineup)
    store.set_status(ids["greedy"], "suspended", "a stand-in had to play for it")
    store.set_status(ids["greedy"], "active", "reinstated by the host")
    store.close()

    league, store = league_at(tmp_path)
    league.restore()
    assert {e.name: e.status for e in store.entrants()}["greedy"] == "active"
    store.close()
