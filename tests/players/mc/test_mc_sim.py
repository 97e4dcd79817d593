"""Differential tests: the Numba simulator of the mc player against the reference engine.

Both trick clears are held: the devkit's (``owner_answers``, the ``uecda`` default) and the
2013 build's; and every player count the simulator plays (3 to 6) with one or two jokers.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from daihinmin.players.mc import state as S
from daihinmin.players.mc.convert import decode_move, encode_move, state_from_game
from daihinmin.players.mc.movegen import generate
from daihinmin.players.mc.moves import MAX_MOVES
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA, WEB, ForbiddenPlays, LaterLead, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DECK = [4 * r + s for r in range(1, 14) for s in range(4)] + [60]
DECK2 = [*DECK, 61]
RULES_2013 = UECDA.with_rules(owner_answers=False)
PLAYER_COUNTS = (3, 4, 5, 6)


#: Each toggle of the rules word (players.mc.rulebits) alone, and all of the web preset's.
TOGGLES: dict[str, dict[str, object]] = {
    "no_edge_jokers": {"sequence_edge_jokers": False},
    "sequences_never_revolt": {"revolution_sequence_min": 0},
    "sequences_revolt_at_4": {"revolution_sequence_min": 4},
    "no_eight_cut_by_joker": {"eight_cut_by_joker": False},
    "eleven_back": {"eleven_back": True},
    "eleven_back_no_joker_effects": {"eleven_back": True, "joker_effects": False},
    "no_lock_by_joker": {"lock_joker_starts": False},
    "leader_must_play": {"leader_may_pass": False},
    "miyako_ochi": {"miyako_ochi": True},
    "web": {"sequence_edge_jokers": False, "revolution_sequence_min": 0,
            "eight_cut_by_joker": False, "joker_effects": False, "lock_joker_starts": False,
            "eleven_back": True, "miyako_ochi": True, "forbidden_plays": ForbiddenPlays.WEB,
            "later_lead": LaterLead.LAST_PLACE, "leader_may_pass": False},
}


def table_rules(players: int = 5, jokers: int = 1, answers: bool = True,
                toggles: dict[str, object] | None = None) -> RuleSet:
    """The uecda play rules at another player count and joker count, with toggles (which
    may set the jokers too)."""
    table: dict[str, object] = {"players": players, "jokers": jokers, "owner_answers": answers,
                                "points": ()}
    return UECDA.with_rules(**(table | (toggles or {})))


pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


def sim_plays(game: GameState, canonical: bool = False) -> set[tuple[int, int]]:
    st_arr = state_from_game(game)
    oc = np.zeros(MAX_MOVES, dtype=np.int64)
    oi = np.zeros(MAX_MOVES, dtype=np.int64)
    n = generate(st_arr[game.turn], st_arr[S.FIELD_INFO], st_arr[S.REV], st_arr[S.LOCK],
                 canonical, oc, oi, st_arr[S.RULES])
    out = {(int(oc[i]), int(oi[i])) for i in range(n)}
    assert len(out) == n, "the generator listed a move twice"
    return out


def check_position(game: GameState, moves_to_try: int, rng: random.Random) -> None:
    """Same legal plays, and the same next state after each tried move."""
    ref = {encode_move(m) for m in game.legal_plays()}
    mine = sim_plays(game)
    assert mine == ref, (f"hand {game.hands[game.turn]} field {game.field}: extra "
                         f"{[str(decode_move(*x)) for x in mine - ref]} missing "
                         f"{[str(decode_move(*x)) for x in ref - mine]}")
    canon = sim_plays(game, canonical=True)
    assert canon <= mine
    # canonical = one joker placement per card set, and no joker standing in for a held card
    def substitutes(c: int, i: int) -> bool:
        m = decode_move(c, i)
        return bool(m.joker_cells) and any(
            (row, col) for row, col in m.joker_cells
            if m.kind.name in ("SEQUENCE", "STAIRS") and 4 * col + row in game.hands[game.turn])
    assert {c for c, _ in canon} == {c for c, i in mine if not substitutes(c, i)}
    moves = game.legal_moves()
    for move in rng.sample(moves, min(moves_to_try, len(moves))):
        check_step(game, move)


def check_cases(rules: RuleSet, cases: list[tuple[str, str | None, bool]], others: list[str],
                check: Callable[[GameState, int, random.Random], None] | None = None) -> None:
    """Hand-picked positions, in both orders: player 0 holds a case's hand on its field
    (None: to lead; owned by player 1) and lock, the others hold ``others``."""
    for mine, field, lock in cases:
        hands = [CardSet.parse(mine), *(CardSet.parse(h) for h in others)]
        for rev in (False, True):
            game = GameState(rules=rules, hands=hands, seats=tuple(range(len(hands))), turn=0,
                             rng=random.Random(0), field=Move.parse(field) if field else None,
                             owner=1, lock=lock, revolution=rev)
            (check or check_position)(game, 99, random.Random(0))


def check_step(game: GameState, move: Move) -> None:
    sim = state_from_game(game)
    c, i = encode_move(move)
    S.apply_move(sim, c, i)
    ref = game.copy()
    ref.step(move)
    expected = state_from_game(ref)
    if ref.over:
        n = game.n_players
        assert sim[S.OVER] == 1
        assert sorted(sim[S.OUT:S.OUT + n]) == sorted(expected[S.OUT:S.OUT + n])
        assert list(sim[S.OUT:S.OUT + len(game.finished)]) == game.finished
    else:
        assert list(sim) == list(expected), f"after {move}: {list(sim)} != {list(expected)}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), answers=st.booleans(), data=st.data())
def test_random_games_match_engine(seed: int, answers: bool, data: st.DataObject) -> None:
    """Whole games with hypothesis-chosen moves: every position agrees."""
    play_whole_game(UECDA if answers else RULES_2013, seed, data)


def play_whole_game(rules: RuleSet, seed: int, data: st.DataObject, games: int = 1,
                    check: Callable[[GameState, int, random.Random], None] | None = None
                    ) -> None:
    """``games`` games of a match (later ones: exchange, later leads, miyako-ochi), each
    position held by ``check`` (default: :func:`check_position`); a pending 7-pass or
    10-discard choice is a position too, answered by hypothesis."""
    match = MatchState(rules, seed=seed, games=games)
    rng = random.Random(seed)
    while not match.finished:
        game = match.setup_game().start()
        while not game.over:
            (check or check_position)(game, 2, rng)
            if game.pending is not None:
                options = game.legal_choices()
                game.step_choice(options[data.draw(st.integers(0, len(options) - 1),
                                                   label="choice")])
                continue
            moves = game.legal_moves()
            game.step(moves[data.draw(st.integers(0, len(moves) - 1), label="move")])
        match.finish_game(game)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("jokers", [1, 2])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), answers=st.booleans(), data=st.data())
def test_whole_games_at_every_table_size_match_engine(players: int, jokers: int, seed: int,
                                                      answers: bool,
                                                      data: st.DataObject) -> None:
    """Whole games at 3-6 players with one or two jokers: every position agrees (the
    lone joker, groups and runs with both jokers, the 8-cut by a joker, ...)."""
    play_whole_game(table_rules(players, jokers, answers), seed, data)


@st.composite
def positions(draw: st.DrawFn, players: int = 5, jokers: int = 1,
              toggles: dict[str, object] | None = None) -> GameState:
    """Arbitrary mid-trick positions: hands, a field, lock, revolution (and 11-back),
    passes, owner, the previous game's classes."""
    n = players
    deck = draw(st.permutations(DECK if jokers == 1 else DECK2))
    n_out = draw(st.integers(0, n - 2))
    sizes = [0] * n_out + [draw(st.integers(1, 9)) for _ in range(n - n_out)]
    order = draw(st.permutations(range(n)))
    hands = [CardSet(0)] * n
    pos = 0
    for p, size in zip(order, sizes, strict=True):
        hands[p] = CardSet.of(deck[pos:pos + size])
        pos += size
    pile = CardSet.of(deck[pos:pos + 12])
    active = [p for p in range(n) if hands[p]]
    turn = draw(st.sampled_from(active))
    answers = draw(st.booleans())  # the devkit's trick clear: the owner may be to move
    rules = table_rules(n, jokers, answers, toggles)
    field: Move | None = None
    lock = revolution = False
    revolution = draw(st.booleans())
    if draw(st.booleans()):
        field = draw(st.sampled_from(all_plays(pile, rules)))
        lock = field.kind.name != "JOKER" and draw(st.booleans())
    owner = draw(st.sampled_from([p for p in range(n) if p != turn or answers] or [turn]))
    passed = 0
    for p in active:
        if p not in (turn, owner) and draw(st.booleans()):
            passed |= 1 << p
    seats = tuple(draw(st.permutations(range(n))))
    finished = [p for p in order[:n_out]]
    eleven_back = rules.eleven_back and field is not None and draw(st.booleans())
    prev_classes = tuple(draw(st.permutations(range(n)))) if draw(st.booleans()) else None
    return GameState(rules=rules, hands=hands, seats=seats, turn=turn, rng=random.Random(0),
                     field=field, owner=owner, passed=passed, revolution=revolution, lock=lock,
                     finished=finished, failures=draw(st.integers(0, 19)),
                     eleven_back=eleven_back, prev_classes=prev_classes)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=positions(), seed=st.integers(0, 1000))
def test_arbitrary_positions_match_engine(game: GameState, seed: int) -> None:
    check_position(game, 6, random.Random(seed))


@st.composite
def any_table_positions(draw: st.DrawFn) -> GameState:
    players = draw(st.sampled_from(PLAYER_COUNTS))
    return draw(positions(players, draw(st.sampled_from([1, 2]))))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=any_table_positions(), seed=st.integers(0, 1000))
def test_positions_at_every_table_size_match_engine(game: GameState, seed: int) -> None:
    """3-6 players, one or two jokers: the same legal plays and the same next states."""
    check_position(game, 6, random.Random(seed))


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_each_simulated_toggle_matches_engine_in_arbitrary_positions(
        toggle: str, data: st.DataObject, seed: int) -> None:
    """Every toggle of the rules word, alone and as the web preset sets them: the same
    legal plays and next states at 3-6 players, one or two jokers."""
    players = data.draw(st.sampled_from(PLAYER_COUNTS), label="players")
    jokers = data.draw(st.sampled_from([1, 2]), label="jokers")
    game = data.draw(positions(players, jokers, TOGGLES[toggle]), label="position")
    check_position(game, 6, random.Random(seed))


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_each_simulated_toggle_matches_engine_in_whole_matches(
        toggle: str, seed: int, data: st.DataObject) -> None:
    """Three-game matches with each toggle (at four players, both jokers): every position
    of every game agrees, exchanges, later leads and miyako-ochi included."""
    play_whole_game(table_rules(4, 2, False, TOGGLES[toggle]), seed, data, games=3)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_web_matches_match_engine(seed: int, data: st.DataObject) -> None:
    """The web preset itself, three games a match."""
    play_whole_game(WEB, seed, data, games=3)


def test_eleven_back_miyako_ochi_and_joker_locks_match_engine() -> None:
    """Hand-picked: a J turns the order for the trick and the clear turns it back (a joker
    standing as J only with joker effects); only a real 8 cuts; a joker never starts a lock;
    the old daifugo drops to last when someone else goes out first; a leader must play."""
    web4 = table_rules(4, 2, False, TOGGLES["web"])
    cases = [
        ("SJ", "H5 H6", Move.parse("D9"), False),
        ("S9 ST JK", "H5 H6", Move.parse("D3 D4 D5"), False),
        ("S7 S9 JK", "H5", Move.parse("D3 D4 D5"), False),
        ("H7 JK", "H5", Move.parse("D6 JK@S6"), False),
        ("S4", "H5 H6", None, True),
    ]
    for mine, other, field, prev in cases:
        hands = [CardSet.parse(mine), CardSet.parse(other), CardSet.parse("C3 C4"),
                 CardSet.parse("DA")]
        game = GameState(rules=web4, hands=hands, seats=(0, 1, 2, 3), turn=0,
                         rng=random.Random(0), field=field, owner=1,
                         prev_classes=(1, 0, 2, 3) if prev else None)
        check_position(game, 99, random.Random(0))


def test_two_joker_plays_match_engine() -> None:
    """Hand-picked: both jokers in a group (with row 4 when the suits run out), in a run
    (in gaps, at the edges, standing in for held cards), under a lock and a revolution, and
    a hand of only the two jokers."""
    rules = table_rules(4, 2)
    cases = [
        ("S7 H7 D7 JK JK", None, False),
        ("S7 JK JK", "H5 D5", True),
        ("S4 S6 JK JK", None, False),
        ("SA S2 JK JK", "S5 S6 S7 S8", False),
        ("S3 JK JK", None, False),
        ("JK JK", "H4", False),
        ("H9 D9 C9 S9 JK JK", None, False),
        ("S8 JK JK", "D4 D5 D6", False),
    ]
    for mine, field, lock in cases:
        hands = [CardSet.parse(mine), CardSet.parse("D3 CK"), CardSet.parse("C3"), CardSet(0)]
        for rev in (False, True):
            game = GameState(rules=rules, hands=hands, seats=(0, 1, 2, 3), turn=0,
                             rng=random.Random(0), field=Move.parse(field) if field else None,
                             owner=1, lock=lock, revolution=rev, finished=[3])
            check_position(game, 99, random.Random(0))


def test_special_rules_match_engine() -> None:
    """Hand-picked positions: 8-cut by a joker, 8 inside a sequence, ♠3 over the joker,
    joker in a locked group, five-card group revolution, a finishing play that ends a trick."""
    cases = [
        ("S7 JK", "H5 H6 H7", None),
        ("S9 JK", "D5", Move.parse("D4")),
        ("S3 H4", "S4", Move.parse("JK")),
        ("H9 JK D9 C4", "H5 D5", Move.parse("H7 D7")),
        ("S6 H6 D6 C6 JK", "S3", None),
        ("S8", "D9", Move.parse("S5")),
    ]
    for mine, other, field in cases:
        hands = [CardSet.parse(mine), CardSet.parse(other), CardSet.parse("C3"), CardSet(0),
                 CardSet(0)]
        lock = field is not None and field.kind.name == "GROUP"
        game = GameState(rules=UECDA, hands=hands, seats=(0, 1, 2, 3, 4), turn=0,
                         rng=random.Random(0), field=field, owner=1, lock=lock,
                         finished=[3, 4])
        check_position(game, 99, random.Random(0))


def test_move_encoding_round_trips() -> None:
    hand = CardSet.parse("S3 S4 S5 H5 D5 C5 S8 JK")
    for move in [*all_plays(hand, UECDA), PASS]:
        assert decode_move(*encode_move(move)) == move
    hand = CardSet.parse("S3 S4 S5 S7 H5 D5 C5 S8 JK JK")
    for move in all_plays(hand, table_rules(4, 2)):
        assert decode_move(*encode_move(move)) == move


def test_one_joker_moves_pack_as_before() -> None:
    """The second joker's cell adds bits only to two-joker moves: the uecda encodings (and
    so the simulator's uecda behaviour) are unchanged."""
    c, i = encode_move(Move.parse("S9 ST JK@SJ"))
    assert i >> 28 == 0 and c == Move.parse("S9 ST JK@SJ").cards.mask | 1 << 60
    c2, i2 = encode_move(Move.parse("S9 JK@ST JK@SJ"))
    assert c2 >> 60 == 3 and (i2 >> 28) & 7 == 1 and (i2 >> 31) & 15 == 9


@pytest.mark.parametrize("rules", [UECDA, RULES_2013], ids=["devkit", "2013"])
def test_the_owner_answering_its_own_cards_matches_engine(rules) -> None:
    """Every other player has passed the field of player 0: under the devkit's rule player 0
    answers (a play keeps the turn, a pass clears); the 2013 build never gets here, but a
    state like it must still step the same."""
    cases = [("S9 C9 S8", "S5"), ("S3 H4", "JK"), ("H9", "D5"), ("S6 H6 D6 C6", "S4 H4")]
    for mine, field in cases:
        hands = [CardSet.parse(mine), CardSet.parse("D3 D4"), CardSet.parse("C3"), CardSet(0),
                 CardSet(0)]
        game = GameState(rules=rules, hands=hands, seats=(0, 1, 2, 3, 4), turn=0,
                         rng=random.Random(0), field=Move.parse(field), owner=0,
                         passed=0b110, finished=[3, 4])
        check_position(game, 99, random.Random(0))
