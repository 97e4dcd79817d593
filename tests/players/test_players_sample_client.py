"""``default`` is the official UECda sample client: same exchange, same plays.

The reference session in ``tests/data/transcript_example.txt`` was played by five
standard C clients, and the server's kifu lists every hand and every action.  Replaying the
two games through the engine, ``Default2013Bot`` (the transcript's clients are the 2013 build)
must choose exactly what each C client chose at each of its turns (a kifu pass is a pass or a
rejected table; the bot passes for both).  ``DefaultBot`` is the devkit package's build.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from daihinmin.contract.engine_views import deal_view, engine_view, exchange_facts
from daihinmin.contract.view import GameView, Observed
from daihinmin.players.default_bot import Default2013Bot, DefaultBot
from daihinmin.players.sample_tables import (
    field_facts,
    follow_cells,
    hand_grid,
    joker_runs,
    lead_cells,
)
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move, move_from_cells, move_to_cells


def _transcript_module() -> ModuleType:
    # the kifu parser lives with the transcript replay test (tests are not a package)
    path = Path(__file__).parents[1] / "protocol" / "test_transcript.py"
    spec = importlib.util.spec_from_file_location("transcript_replay", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


T = _transcript_module()


def _replay_decisions() -> tuple[list[tuple[int, int, str, str]], int, int]:
    """Every decision of the two kifu games: (game, player, C client's move, bot's move)."""
    bot = Default2013Bot()
    out: list[tuple[int, int, str, str]] = []
    exchanges = 0
    skipped = 0
    match = MatchState(T.RULES_2013, seed=0, games=10)
    for index, k in enumerate(T.kifu()):
        game = index + 1
        setup = T.setup_from_kifu(k, game, match.classes)
        for giver, _receiver, cards in k.exchanges[len(setup.transfers):]:
            view = deal_view(setup, giver, exchange_facts(setup)[giver])
            chosen = bot.exchange(view, len(cards))
            out.append((game, giver, f"gives {cards}", f"gives {chosen}"))
            exchanges += 1
            setup.give_back(giver, cards)
        facts = exchange_facts(setup)
        state: GameState = setup.start()
        history: list[Observed] = []
        for player, move in k.plays:
            if player != state.turn:  # tndhms's early trick clear (see test_transcript)
                history.append(Observed(state.turn, PASS, state.field is None))
                state.step(PASS)
                skipped += 1
            view = engine_view(state, player, setup, history, facts[player])
            played = bot.play(view)
            out.append((game, player, str(move), str(played)))
            history.append(Observed(player, move, state.field is None))
            state.step(move)
        match.finish_game(state)
    return out, exchanges, skipped


def test_default_bot_chooses_what_every_c_client_chose() -> None:
    decisions, exchanges, skipped = _replay_decisions()
    assert exchanges == 2 and skipped <= 2
    assert len(decisions) > 150
    wrong = [d for d in decisions if d[2] != d[3]]
    assert wrong == []


# --- the quirks, on hand-made positions ---------------------------------------------------------
def cells_of(text: str) -> dict[tuple[int, int], int]:
    return move_to_cells(Move.parse(text))


def follow(hand: str, field: str, *, rev: bool = False, lock: bool = False) -> str:
    facts = field_facts(cells_of(field), rev)
    cells = follow_cells(hand_grid(CardSet.parse(hand)), facts, rev, lock)
    return str(move_from_cells(cells)) if cells else "pass"


def test_single_follow_keeps_pairs_and_runs_and_spends_the_joker() -> None:
    # the 5s are a pair, the 7-8-9 of hearts a run: the only loose card above 4 is the K
    assert follow("S5 D5 H7 H8 H9 CK", "S4") == "CK"
    # nothing loose beats the field: the joker goes alone
    assert follow("S5 D5 H7 H8 H9 JK", "S4") == "JK"
    assert follow("S5 D5 H7 H8 H9", "S4") == "pass"


def test_group_follow_needs_exactly_the_fields_size() -> None:
    # a triple is not broken for a pair; the pair of Ks answers
    assert follow("S6 H6 D6 SK HK", "S4 H4") == "SK HK"
    assert follow("S6 H6 D6", "S4 H4") == "pass"
    # with the joker only when no exact pair exists
    assert follow("S6 H6 D6 CQ JK", "S4 H4") in {"CQ JK@SQ", "JK@SQ CQ"}


def test_lead_spends_the_joker_on_the_biggest_group() -> None:
    hand = hand_grid(CardSet.parse("S4 H4 D9 CK JK"))
    # no two cards of a suit close enough for a run: the pair of 4s becomes a triple
    assert lead_cells(hand, False) == {(0, 2): 1, (1, 2): 1, (2, 2): 2}


def revolution_lead_view(hand: str) -> GameView:
    return GameView(player=0, hand=CardSet.parse(hand), field=None, turn_player=0,
                    revolution=True, eleven_back=False, lock=False, counts=(4, 5, 5, 5, 5),
                    classes=(0,) * 5, seats=(0, 1, 2, 3, 4), my_turn=True)


def test_sequence_lead_under_a_revolution_is_a_malformed_table_in_the_2013_build() -> None:
    hand = hand_grid(CardSet.parse("S4 S5 S6 HK"))
    cells = lead_cells(hand, True, devkit=False)
    assert sum(1 for v in cells.values() if v == 2) >= 2  # a group "with two jokers"
    view = revolution_lead_view("S4 S5 S6 HK")
    assert Default2013Bot().play(view) == PASS  # the server rejects it: a pass


@pytest.mark.parametrize(("hand", "lead"), [
    ("S4 S5 S6 HK", "S4 S5 S6"),
    ("C8 C9 CT D3", "C8 C9 CT"),
    ("HK HA H2 S3 D3", "HK HA H2"),  # the sequence goes before the pair
    ("S3 S4 S5 S6 S7 S8 S9", "S3 S4 S5 S6 S7 S8 S9"),  # the longest first
    ("S5 S6 S7 S8 H9 HT HJ", "S5 S6 S7 S8"),
    ("S4 S5 S6 H9 HT HJ", "H9 HT HJ"),  # the strongest of one length under a revolution
])
def test_the_devkit_client_leads_its_strongest_sequence_under_a_revolution(
        hand: str, lead: str) -> None:
    assert lead_cells(hand_grid(CardSet.parse(hand)), True) == cells_of(lead)
    assert DefaultBot().play(revolution_lead_view(hand)) == Move.parse(lead)


def test_joker_run_counter_carries_from_one_suit_to_the_next_in_the_2013_build() -> None:
    # ♠3 held, then ♥2 held: the carried count makes a bogus 3-run at ♥2 (the original's bug)
    table = joker_runs(hand_grid(CardSet.parse("S3 H2 JK")), per_suit=False)
    assert table.get(1, 13) == 3
    # the devkit build counts each suit from 1: no run at ♥2
    assert joker_runs(hand_grid(CardSet.parse("S3 H2 JK"))).get(1, 13) == 0
    # without the ♠3 the ♥2 starts a 2-run (the 2 and the joker above it)
    assert joker_runs(hand_grid(CardSet.parse("H2 JK"))).get(1, 13) == 0


@pytest.mark.parametrize("seed", range(3))
def test_default_bots_finish_their_games_and_every_play_is_accepted(seed: int) -> None:
    from daihinmin.driver.record import GameRecord
    from daihinmin.local.runner import play_local_match

    records: list[GameRecord] = []
    play_local_match(UECDA, seed, 20, [DefaultBot() for _ in range(5)], records.append)
    assert len(records) == 20
    plays = [t for r in records for t in r.turns if t.move != "pass"]
    assert plays and all(t.answer == 9 and t.fault is None for t in plays)


def test_exchange_gives_the_lowest_cards() -> None:
    view = GameView(player=0, hand=CardSet.parse("S3 H3 D4 JK C2"), field=None,
                    turn_player=-1, revolution=False, eleven_back=False, lock=False,
                    counts=(5,) * 5, classes=(0,) * 5, seats=(0, 1, 2, 3, 4))
    assert DefaultBot().exchange(view, 2) == CardSet.parse("S3 H3")
