"""The learned playout policy: its features, its draws, and fitting it to searches."""

from __future__ import annotations

import numpy as np
import pytest
from daihinmin.local.runner import play_local_match
from daihinmin.players.mc.bits import JOKER_BIT
from daihinmin.players.mc.bits import REAL_CARDS as REAL
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.convert import encode_move, hand_mask
from daihinmin.players.mc.fit import decision_sample, softmax_rows, stack_samples
from daihinmin.players.mc.learned import learned_choose, move_features
from daihinmin.players.mc.movegen import generate
from daihinmin.players.mc.moves import MAX_MOVES
from daihinmin.players.mc.rollout import DEFAULT_PARAMS, P_SELF, P_WEIGHTS, policy_params
from daihinmin.players.mc.rulebits import rules_word
from daihinmin.players.mc.state import FIELD_CARDS, FIELD_INFO, deal_pile, new_state
from daihinmin.players.mc.weights import (
    FEATURE_NAMES,
    FITTED_WEIGHTS,
    N_FEATURES,
    WeightsFileError,
    save_weights,
)
from daihinmin.players.registry import make_bot
from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

SEATS = np.arange(5, dtype=np.int64)
F = {name: k for k, name in enumerate(FEATURE_NAMES)}


pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


def state_of(hands: list[str], field: str | None = None) -> np.ndarray:
    st = new_state(np.array([hand_mask(CardSet.parse(h)) for h in hands], dtype=np.int64),
                   SEATS, 0, True)
    if field is not None:
        st[FIELD_CARDS], st[FIELD_INFO] = encode_move(Move.parse(field))
    return st


def rows_of(st: np.ndarray) -> tuple[np.ndarray, list[str]]:
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    n = generate(st[0], st[FIELD_INFO], 0, 0, True, bufc, bufi, 0)
    rows = np.zeros((n + 1, N_FEATURES))
    used = move_features(st, 0, bufc, bufi, n, rows)
    names = [" ".join(x for x in (str(CardSet(int(bufc[i]) & REAL)),
                                  "JK" if bufc[i] & JOKER_BIT else "") if x)
             for i in range(n)]
    return rows[:used], names + (["pass"] if used > n else [])


HANDS = ["S3 H5 D5 C5 S7 H9 DJ CK SA H2 JK", "H3 S4 H4 S6 H7 ST", "D3 D4 C6 D7 S8 C9 HT",
         "C3 D6 S9 D9 CT SJ", "C4 H6 C7 H8 DT HJ"]


def test_features_describe_the_plays() -> None:
    rows, names = rows_of(state_of(HANDS))
    r = dict(zip(names, rows, strict=True))
    assert "pass" not in r  # no pass when leading
    assert r["H5 D5 C5"][F["extra_lead"]] == 2 and r["H5 D5 C5"][F["split"]] == 0
    assert r["H5"][F["split"]] == 2 and r["H5"][F["extra_lead"]] == 0
    assert r["S3"][F["strength_lead"]] == pytest.approx(1 / 13)
    assert r["H5 D5 C5 JK"][F["joker_mix"]] == 1 and r["JK"][F["joker_alone"]] == 1
    assert r["DJ"][F["control_lead"]] == 1  # the others' best single is a jack
    assert r["H9"][F["control_lead"]] == 0
    assert r["S3"][F["ranks_left"]] == pytest.approx(0.8)  # 7 ranks and the joker left
    assert r["S3"][F["cards_left"]] == pytest.approx(10 / 11)


def test_the_pass_has_a_row_when_following() -> None:
    rows, names = rows_of(state_of(HANDS, field="ST"))
    assert names[-1] == "pass"
    assert rows[-1][F["pass"]] == 1 and rows[-1][F["pass_field"]] == pytest.approx(8 / 13)
    assert rows[-1][F["pass_active"]] == 1  # five players in: three beyond two
    follow = dict(zip(names, rows, strict=True))
    assert follow["H2"][F["top_follow"]] == 1 and follow["DJ"][F["top_follow"]] == 0


def test_draws_follow_the_softmax_of_the_weights() -> None:
    st = state_of(HANDS, field="S7")
    rows, names = rows_of(st)
    weights = FITTED_WEIGHTS
    expected = softmax_rows((rows @ weights)[None, :], np.ones((1, len(rows)), bool))[0]
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    draws = 20_000
    counts = np.zeros(len(rows))
    for _ in range(draws):
        i = learned_choose(st, 0, DEFAULT_PARAMS, weights, bufc, bufi)
        counts[len(rows) - 1 if i < 0 else i] += 1
    # within 4.5 standard errors on every move
    se = np.sqrt(expected * (1 - expected) / draws) + 1e-9
    assert np.all(np.abs(counts / draws - expected) < 4.5 * se + 1e-3), (names, counts, expected)


def test_a_winning_play_is_still_forced() -> None:
    st = state_of(["D2 H2 S5", "H3 S4", "D3 D4", "C3 D6", "C4 H6"])
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    strongly_against = np.full(N_FEATURES, -50.0)
    twos = hand_mask(CardSet.parse("D2 H2"))
    for _ in range(50):  # no one can answer the 2s: lead them, then the 5 goes out
        i = learned_choose(st, 0, DEFAULT_PARAMS, strongly_against, bufc, bufi)
        assert i >= 0 and bufc[i] & ~twos == 0


def test_weights_are_policy_parameters() -> None:
    prm = policy_params(self=0.0, w_pass=1.5)
    assert prm[P_WEIGHTS + F["pass"]] == 1.5 and prm[P_SELF] == 0.0
    assert np.array_equal(DEFAULT_PARAMS[P_WEIGHTS:], FITTED_WEIGHTS)


def test_searched_decisions_become_samples() -> None:
    mc = MCBot(seed=3, time_ms=0, playouts=200, warm=False)
    samples = []
    seen = []

    def record(st, me, cand_c, cand_i, stats) -> None:
        seen.append(1)
        s = decision_sample(st, me, cand_c, cand_i, stats.visits, mc.prm)
        if s is not None:
            samples.append(s)

    mc.on_search = record
    bots = [mc] + [make_bot("default") for _ in range(4)]
    play_local_match(UECDA, seed=5, games=3, bots=bots)
    assert len(samples) >= 5 and len(samples) <= len(seen)
    batch = stack_samples(samples)
    assert np.allclose(batch.targets.sum(axis=1), 1.0)
    assert np.all(batch.targets[~batch.mask] == 0) and np.isfinite(batch.rows).all()


def test_weights_files_from_the_fit_tool_load_and_bad_ones_are_refused(tmp_path) -> None:
    good = tmp_path / "w.json"
    good.write_text('{"w_pass": -2.5, "w_cut": 0.5}')
    mc = MCBot(learned_self=True, weights_file=str(good), warm=False)
    assert mc.prm[P_WEIGHTS + F["pass"]] == -2.5 and mc.prm[P_SELF] == 1.0
    for text in ('{"w_nonsense": 1}', '[1, 2]', '{"w_pass": "high"}', "{not json"):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(WeightsFileError):
            MCBot(weights_file=str(bad), warm=False)
    written = tmp_path / "fitted.json"  # what the fit tool writes, read back
    save_weights(str(written), FITTED_WEIGHTS.tolist())
    mc = MCBot(weights_file=str(written), warm=False)
    assert np.allclose(mc.prm[P_WEIGHTS:], FITTED_WEIGHTS, atol=5e-4)


def floor_rows(hands: list[str], field: str | None, word: int,
               pile: str = "") -> dict[str, np.ndarray]:
    """The feature rows of player 0's moves, by name, at four players under ``word``."""
    st = new_state(np.array([hand_mask(CardSet.parse(h)) for h in hands], dtype=np.int64),
                   np.arange(4, dtype=np.int64), 0, False, word)
    if pile:
        deal_pile(st, hand_mask(CardSet.parse(pile)), len(CardSet.parse(pile)))
    if field is not None:
        st[FIELD_CARDS], st[FIELD_INFO] = encode_move(Move.parse(field))
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    n = generate(st[0], st[FIELD_INFO], 0, 0, True, bufc, bufi, word)
    rows = np.zeros((n + 1, N_FEATURES))
    used = move_features(st, 0, bufc, bufi, n, rows)
    names = [str(CardSet(int(bufc[i]) & REAL)) for i in range(n)]
    return dict(zip(names + (["pass"] if used > n else []), rows[:used], strict=True))


FLOOR_HANDS = ["H5 S8 D4 C4 HK", "S4 S6 S7 DT", "H4 D6 H7 CT", "C6 C7 SQ CQ"]


def test_role_card_and_draw_features_at_the_thirteenth_floor() -> None:
    word = rules_word(THIRTEENTH_FLOOR)
    lead = floor_rows(FLOOR_HANDS, None, word, pile="D2 H2 S2")
    assert lead["H5"][F["role_play"]] == 1 and lead["HK"][F["role_play"]] == 0
    assert lead["HK"][F["role_left"]] == pytest.approx(2 / 3)  # the 5 and the 8 stay
    assert lead["D4 C4"][F["only_role"]] == 0  # the king is left to finish with
    follow = floor_rows(FLOOR_HANDS, "S3 H3", word, pile="D2 H2 S2")
    assert follow["D4 C4"][F["only_role"]] == 0
    assert follow["pass"][F["pass_draw"]] == pytest.approx(2 / 4)  # a pass draws the pair's 2
    assert follow["pass"][F["role_left"]] == pytest.approx(2 / 3)
    short = floor_rows(FLOOR_HANDS, "S3 H3", word, pile="D2")
    assert short["pass"][F["pass_draw"]] == pytest.approx(1 / 4)  # only one card is left
    single = floor_rows(["H5 S8 D4", *FLOOR_HANDS[1:]], "S3", word, pile="D2 H2")
    assert single["D4"][F["only_role"]] == 1  # the 5 and the 8 cannot be the last play
    at_uecda = floor_rows(FLOOR_HANDS, "S3 H3", 0)
    new = [F[name] for name in ("role_play", "role_left", "only_role", "pass_draw")]
    assert all(not row[new].any() for row in at_uecda.values())
