"""Scenario tests of the presets ``original``, ``web``, ``app`` and ``thirteenth_floor``.

Each test deals small hands, steps the engine and checks verdicts, events and the state, with
the examples the seed documents give and the choices ``docs/RULES.md``
records where they are silent.
"""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState
from daihinmin.rules.judge import Reject, beats
from daihinmin.rules.leads import draw_for_lead
from daihinmin.rules.match import MatchState
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import (
    APP,
    ORIGINAL,
    THIRTEENTH_FLOOR,
    WEB,
    ruleset_from,
)
from daihinmin.rules.scoring import class_titles, standings
from daihinmin.values.cards import CardSet, card
from daihinmin.values.moves import JOKER_PAIR, LONE_JOKER, PASS, Move, MoveKind
from games import kinds, new_game, pile_cards, step, verdict


def legal(g: GameState) -> set[str]:
    return {str(m) for m in g.legal_moves()}


def play_out(match: MatchState, rng: random.Random) -> GameState:
    setup = match.setup_game()
    g = setup.start()
    while not g.over:
        g.step(rng.choice(g.legal_moves()))
    match.finish_game(g)
    return g


# === original ===================================================================================
def test_original_deals_all_54_cards_to_six_and_names_the_classes() -> None:
    setup = MatchState(ORIGINAL, seed=1, games=1).setup_game()
    assert [len(h) for h in setup.hands] == [9] * 6 and sum(h.jokers for h in setup.hands) == 2
    assert class_titles(ORIGINAL) == ("daifugo", "fugo", "heimin", "heimin", "hinmin",
                                      "daihinmin")
    assert class_titles(ORIGINAL.with_rules(players=5)).count("heimin") == 1
    assert "heimin" not in class_titles(ORIGINAL.with_rules(players=4))
    assert class_titles(ORIGINAL.with_rules(players=3)) == ("daifugo", "heimin", "daihinmin")


def test_original_club3_holder_leads_and_the_lead_must_contain_it() -> None:
    g = new_game(ORIGINAL, ["S4 S9", "H5 D5", "C3 D3 H9", "S6"], first=None)
    assert g.turn == 2 and g.lead_must_contain == CardSet.parse("C3")
    assert verdict(g, "H9") is Reject.MUST_CONTAIN
    assert verdict(g, "D3") is Reject.MUST_CONTAIN
    assert verdict(g, "pass") is Reject.LEADER_MUST_PLAY
    assert legal(g) == {"C3", "D3 C3"}
    step(g, "D3 C3")
    assert not g.lead_must_contain and g.turn == 3


def test_original_match_first_game_club3_then_last_place_leads_after_the_exchange() -> None:
    rules = ORIGINAL.with_rules(players=4)
    match = MatchState(rules, seed=5, games=2)
    setup = match.setup_game()
    g = setup.start()
    assert card("C3") in g.hands[g.turn] and g.lead_must_contain == CardSet.parse("C3")
    rng = random.Random(5)
    while not g.over:
        g.step(rng.choice(g.legal_moves()))
    match.finish_game(g)
    setup2 = match.setup_game()
    assert [(t.automatic, len(t.cards)) for t in setup2.transfers] == [(True, 2), (True, 1)]
    g2 = setup2.start()
    assert setup2.classes is not None and g2.turn == setup2.classes.index(3)
    assert not g2.lead_must_contain


def test_original_restart_heimin_has_no_exchange_and_the_club3_holder_leads_again() -> None:
    rules = ruleset_from("original", ["players=4", "restart=heimin"])
    match = MatchState(rules, seed=2, games=2)
    play_out(match, random.Random(2))
    setup = match.setup_game()
    assert setup.classes is not None and not setup.transfers and not setup.owed
    g = setup.start()
    assert card("C3") in g.hands[g.turn] and g.lead_must_contain == CardSet.parse("C3")


def test_original_sequences_compare_by_rank_overlap_allowed() -> None:
    """Seed: ｛♢２・♢Ａ・♢Ｋ｝＞｛♠Ａ・♠Ｋ・♠Ｑ｝."""
    hands = ["SQ SK SA C5", "DK DA D2 H7", "S4 S5 S6", "H4"]
    g = new_game(ORIGINAL, hands)
    step(g, "SQ SK SA")
    assert verdict(g, "DK DA D2") is None
    web = new_game(WEB, hands)
    step(web, "SQ SK SA")
    assert verdict(web, "DK DA D2") is Reject.NOT_STRONGER  # web: above the field's highest
    g2 = new_game(ORIGINAL, ["DK DA D2 C5", "SQ SK SA H7", "S4", "H4"])
    step(g2, "DK DA D2")
    assert verdict(g2, "SQ SK SA") is Reject.NOT_STRONGER
    g3 = new_game(ORIGINAL, ["S3 S4 S5 C9", "H4 H5 H6 H7", "S8", "H8"])
    step(g3, "S3 S4 S5")
    assert verdict(g3, "H4 H5 H6") is None  # lowest 4 above lowest 3, though they overlap


def test_original_two_jokers_stand_for_two_cards() -> None:
    """Seed: ｛♣４・♠４・♢４｝＝｛ジョーカー・ジョーカー・♢４｝."""
    g = new_game(ORIGINAL, ["S3 H3 C3 SK", "D4 JK JK S9", "S5 H5 D5 C8", "HQ"], first=0)
    plays = [str(m) for m in all_plays(g.hands[1], ORIGINAL)
             if m.kind is MoveKind.GROUP and m.size == 3 and m.low == 2]
    assert sorted(plays) == ["JK@H4 D4 JK@C4", "JK@S4 D4 JK@C4", "JK@S4 JK@H4 D4"]
    step(g, "S3 H3 C3")
    assert verdict(g, "JK@S4 JK@H4 D4") is None
    r = g.step(Move.parse("JK@S4 JK@H4 D4"))
    assert r.judgement.accepted and g.field is not None and g.field.low == 2
    assert g.hands[1] == CardSet.parse("S9") and verdict(g, "S5 H5 D5") is None


def test_original_groups_are_at_most_four() -> None:
    g = new_game(ORIGINAL, ["S5 H5 D5 C5 JK S9", "S6", "S7"])
    assert verdict(g, "S5 H5 D5 C5 JK@X5") is Reject.GROUP_TOO_LARGE
    assert not [m for m in g.legal_moves() if m.size == 5]


def test_original_revolution_by_four_of_a_kind_or_a_straight_flush_of_four() -> None:
    g = new_game(ORIGINAL, ["S5 H5 D5 JK S9", "H3 H4 H5 H6 C2", "S7 S8 S9 SK"])
    r = g.step(Move.parse("S5 H5 D5 JK@C5"))
    assert EventKind.REVOLUTION in kinds(r) and g.revolution
    g2 = new_game(ORIGINAL, ["H3 H4 H5 H6 C2", "S5", "S7"])
    r2 = g2.step(Move.parse("H3 H4 H5 H6"))
    assert EventKind.REVOLUTION in kinds(r2)
    g3 = new_game(ORIGINAL, ["H3 H4 H5 C2", "S5", "S7"])
    assert EventKind.REVOLUTION not in kinds(g3.step(Move.parse("H3 H4 H5")))


def test_original_has_no_eight_cut_no_lock_no_spade3_return_no_edge_joker() -> None:
    g = new_game(ORIGINAL, ["S8 H4 C9", "H5 SK", "H6 S3 DQ"])
    r = g.step(Move.parse("H4"))
    r = g.step(Move.parse("H5"))
    assert EventKind.LOCK_ON not in kinds(r) and not g.lock
    assert verdict(g, "S3") is Reject.NOT_STRONGER and verdict(g, "DQ") is None
    g2 = new_game(ORIGINAL, ["S8 C9", "H9 SK", "S3 DQ"])
    r2 = g2.step(Move.parse("S8"))
    assert not r2.trick_cleared and g2.turn == 1
    g3 = new_game(ORIGINAL, ["JK C9", "S3 SK", "H4 DQ"])
    step(g3, "JK")
    assert verdict(g3, "S3") is Reject.JOKER_ON_FIELD
    g4 = new_game(ORIGINAL, ["S3 S4 JK C9", "S5", "H4"])
    assert verdict(g4, "JK@Sx S3 S4") is Reject.EDGE_JOKER
    assert verdict(g4, "S3 S4 JK@S5") is None


@pytest.mark.parametrize(("hand", "play", "revolution", "forbidden"), [
    ("D2", "D2", False, True),  # a single 2
    ("JK", "JK", False, True),  # the joker alone
    ("JK", "JK", True, True),
    ("S2 H2", "S2 H2", False, True),  # a pair of 2s
    ("S2 JK", "S2 JK@H2", False, True),
    ("SA", "SA", False, False),
    ("S3", "S3", True, True),  # under revolution the 3 is the top
    ("S2", "S2", True, False),
    ("SQ SK SA S2", "SQ SK SA S2", False, True),  # the top straight flush of four
    ("SQ SK SA", "SQ SK SA", False, False),
    ("H3 H4 H5", "H3 H4 H5", True, True),
])
def test_original_forbidden_finish_rejects_the_strongest_play(hand: str, play: str,
                                                              revolution: bool,
                                                              forbidden: bool) -> None:
    """Seed: ［上がり］に対する禁じ手は、最強の手では上がっていけない."""
    g = new_game(ORIGINAL, [hand, "C4 C9", "D4 DT"])
    g.revolution = revolution
    assert (verdict(g, play) is Reject.FORBIDDEN_FINISH) == forbidden
    if forbidden and len(CardSet.parse(hand)) == 1:
        assert g.legal_moves() == [PASS]  # stuck: it may only pass


def test_original_forbidden_play_is_fine_when_it_is_not_the_last() -> None:
    g = new_game(ORIGINAL, ["D2 S4", "C4 C9", "D4 DT"])
    assert verdict(g, "D2") is None


def test_original_exchange_pairs_by_player_count() -> None:
    assert ORIGINAL.exchange_pairs() == [(0, 5, 2), (1, 4, 1)]
    assert ORIGINAL.with_rules(players=5).exchange_pairs() == [(0, 4, 2), (1, 3, 1)]
    assert ORIGINAL.with_rules(players=4).exchange_pairs() == [(0, 3, 2), (1, 2, 1)]
    assert ORIGINAL.with_rules(players=3).exchange_pairs() == [(0, 2, 2)]


def test_original_hands_jokers_over_as_the_strongest_cards() -> None:
    """The memo's rule: the 2 strongest cards, jokers first; the exemption is its variant."""
    assert not ORIGINAL.joker_exchange_exempt
    given = 0
    for seed in range(6):
        match = MatchState(ORIGINAL.with_rules(players=4), seed=seed, games=2)
        play_out(match, random.Random(seed))
        setup = match.setup_game()
        for t in setup.transfers:
            if t.automatic:
                given += t.cards.jokers
                assert t.cards.jokers == min(setup.dealt[t.giver].jokers, len(t.cards))
    assert given > 0


def test_original_joker_exchange_exempt_keeps_the_jokers() -> None:
    rules = ruleset_from("original", ["players=4", "joker_exchange_exempt=yes"])
    for seed in range(6):
        match = MatchState(rules, seed=seed, games=2)
        play_out(match, random.Random(seed))
        setup = match.setup_game()
        assert all(t.cards.jokers == 0 for t in setup.transfers if t.automatic)


# === web ========================================================================================
def test_web_a_lone_joker_is_not_beaten_by_the_other_joker_but_by_spade3() -> None:
    g = new_game(WEB, ["JK C9", "JK S3 SK", "H4 DQ", "D4"])
    step(g, "JK")
    assert verdict(g, "JK") is Reject.JOKER_ON_FIELD
    r = g.step(Move.parse("S3"))
    assert EventKind.SPADE3_RETURN in kinds(r) and r.trick_cleared and g.turn == 1


def test_web_the_leader_may_not_pass() -> None:
    g = new_game(WEB, ["S4 C9", "H5 SK", "H4 DQ", "D4"])
    assert verdict(g, "pass") is Reject.LEADER_MUST_PLAY and PASS not in g.legal_moves()
    step(g, "S4")
    assert verdict(g, "pass") is None


def test_web_eight_cut_by_a_real_eight_even_in_a_sequence_not_by_a_joker() -> None:
    g = new_game(WEB, ["H6 H7 H8 S9 C9", "H5 SK", "H4 DQ", "D4"])
    assert step(g, "H6 H7 H8")[0].trick_cleared and g.turn == 0
    g2 = new_game(WEB, ["H6 H7 JK S9 C9", "H5 SK", "H4 DQ", "D4"])
    r = g2.step(Move.parse("H6 H7 JK@H8"))
    assert not r.trick_cleared and EventKind.EIGHT_CUT not in kinds(r)


def test_web_lock_a_joker_stands_for_the_locked_suit_but_never_starts_a_lock() -> None:
    g = new_game(WEB, ["H5 S9", "H7 DK", "HT JK", "D4 C4"])
    step(g, "H5", "H7")
    assert g.lock and verdict(g, "JK") is None and verdict(g, "HT") is None
    g2 = new_game(WEB, ["S5 H5 S9", "S7 JK DK", "ST HT", "D4 C4"])
    step(g2, "S5 H5")
    r = g2.step(Move.parse("S7 JK@H7"))
    assert r.judgement.accepted and not g2.lock  # same suits, but the play holds a joker


def test_web_revolution_four_with_jokers_but_never_by_sequences() -> None:
    g = new_game(WEB, ["S5 H5 JK JK S9", "S3 S4 S5 S6 S7 DK", "H4", "D4"])
    assert EventKind.REVOLUTION in kinds(g.step(Move.parse("S5 H5 JK@D5 JK@C5")))
    g2 = new_game(WEB, ["S3 S4 S5 S6 S7 DK", "H4", "D4", "C4"])
    assert EventKind.REVOLUTION not in kinds(g2.step(Move.parse("S3 S4 S5 S6 S7")))


def test_web_eleven_back_by_a_real_jack_until_the_trick_clears() -> None:
    g = new_game(WEB, ["SJ S9 C4", "H5 HQ", "H4 DQ", "D3 D6"])
    r = g.step(Move.parse("SJ"))
    assert g.eleven_back and EventKind.ELEVEN_BACK in kinds(r) and g.reversed
    assert verdict(g, "HQ") is Reject.NOT_STRONGER and verdict(g, "H5") is None
    step(g, "H5", "pass", "pass", "pass")
    assert g.field is None and not g.eleven_back
    g2 = new_game(WEB, ["S9 ST JK C4", "H5 HQ", "H4 DQ", "D3 D6"])
    assert EventKind.ELEVEN_BACK not in kinds(g2.step(Move.parse("S9 ST JK@SJ")))


def test_web_miyako_ochi_the_previous_top_finisher_drops_to_last() -> None:
    g = new_game(WEB, ["S4 S5 S6", "S9", "H3 H4", "D3 DK"], first=1,
                 prev_classes=(0, 1, 2, 3))
    r = g.step(Move.parse("S9"))
    assert EventKind.MIYAKO_OCHI in kinds(r)
    assert g.bottom == [0] and not g.hands[0] and g.discarded == CardSet.parse("S4 S5 S6")
    assert g.places()[1] == 0 and g.places()[0] == 3
    g3 = new_game(WEB.with_rules(players=3), ["S4 S5", "S9", "H3 H4"], first=1,
                  prev_classes=(0, 1, 2))
    g3.step(Move.parse("S9"))
    assert g3.places() == [2, 0, 1] and g3.over


def test_web_no_miyako_ochi_when_the_top_finisher_goes_out_first() -> None:
    g = new_game(WEB, ["S9", "S4 S5", "H3 H4", "D3 DK"], first=0, prev_classes=(0, 1, 2, 3))
    r = g.step(Move.parse("S9"))
    assert EventKind.MIYAKO_OCHI not in kinds(r) and not g.bottom


def test_web_trick_cleared_by_a_finishing_play_passes_the_lead_on() -> None:
    g = new_game(WEB, ["S4 C9", "S8", "H3 DQ", "D3 DK"])
    step(g, "S4")
    r = g.step(Move.parse("S8"))
    assert r.trick_cleared and g.finished == [1] and g.turn == 2


@pytest.mark.parametrize(("hand", "play", "forbidden"), [
    ("S2", "S2", True), ("JK", "JK", True), ("S7 JK", "S7 JK@H7", True),
    ("S8", "S8", True), ("S6 H6 D6 C6", "S6 H6 D6 C6", True),
    ("SA", "SA", False), ("S6", "S6", False),
])
def test_web_forbidden_finish_ranks_you_from_the_bottom(hand: str, play: str,
                                                        forbidden: bool) -> None:
    rules = ruleset_from("web", ["forbidden_finish=last"])
    g = new_game(rules, [hand, "C4 C9", "D4 DT", "H4 HT"])
    r = g.step(Move.parse(play))
    assert r.judgement.accepted
    assert (EventKind.FORBIDDEN_FINISH in kinds(r)) == forbidden
    assert (g.places()[0] == 3) == forbidden and (g.places()[0] == 0) != forbidden


def test_web_forbidden_finish_is_off_by_default() -> None:
    g = new_game(WEB, ["S2", "C4 C9", "D4 DT", "H4 HT"])
    g.step(Move.parse("S2"))
    assert g.finished == [0]


def test_web_exchange_match_points_and_tie_break() -> None:
    assert WEB.exchange_pairs() == [(0, 3, 2), (1, 2, 1)]
    three = WEB.with_rules(players=3)
    assert three.exchange_pairs() == [(0, 2, 1)]
    assert class_titles(three) == ("fugo", "heimin", "hinmin")
    assert [WEB.points_for_place(p) for p in range(4)] == [3, 2, 1, 0]
    assert [three.points_for_place(p) for p in range(3)] == [2, 1, 0]
    match = MatchState(WEB, seed=3, games=5)
    rng = random.Random(3)
    while not match.finished:
        g = play_out(match, rng)
        assert sorted(match.results[-1].points) == [0, 1, 2, 3]
        assert g.turns > 0
    order = match.standings()
    assert sorted(order) == [0, 1, 2, 3]
    totals = match.points
    last = match.results[-1].places
    for a, b in pairwise(order):
        assert totals[a] > totals[b] or (totals[a] == totals[b] and last[a] < last[b])
    assert standings(WEB, [6, 6, 2, 1], (1, 0, 2, 3)) == [1, 0, 2, 3]


def test_web_last_place_leads_the_next_game() -> None:
    match = MatchState(WEB, seed=9, games=2)
    first = match.setup_game().start()
    assert card("D3") in first.hands[first.turn]
    match2 = MatchState(WEB, seed=9, games=2)
    play_out(match2, random.Random(1))
    setup = match2.setup_game()
    assert setup.classes is not None and setup.start().turn == setup.classes.index(3)


def test_web_three_and_four_players_only() -> None:
    ruleset_from("web", ["players=3"])
    with pytest.raises(ValueError, match="players"):
        ruleset_from("web", ["players=5"])


# === app ========================================================================================
def test_app_joker_pair_is_the_strongest_pair_and_clears() -> None:
    g = new_game(APP, ["S2 H2 C9", "JK JK S4", "H4 DQ", "D3 DK"])
    step(g, "S2 H2")
    assert verdict(g, "JK JK") is None and JOKER_PAIR in g.legal_moves()
    r = g.step(JOKER_PAIR)
    assert EventKind.JOKER_PAIR in kinds(r) and r.trick_cleared and g.turn == 1
    g2 = new_game(APP, ["S3 H3 C9", "JK JK S4", "H4 DQ", "D3 DK"])
    g2.revolution = True
    step(g2, "S3 H3")
    assert verdict(g2, "JK JK") is None  # still the strongest under revolution
    assert verdict(new_game(WEB, ["JK JK S4", "C9"]), "JK JK") is Reject.JOKER_PAIR_OFF


def test_app_revolution_needs_four_real_cards_unless_joker_revolution() -> None:
    hands = ["S5 H5 D5 JK S9", "S6", "H6", "D6"]
    g = new_game(APP, hands)
    assert EventKind.REVOLUTION not in kinds(g.step(Move.parse("S5 H5 D5 JK@C5")))
    g2 = new_game(ruleset_from("app", ["joker_revolution=yes"]), hands)
    assert EventKind.REVOLUTION in kinds(g2.step(Move.parse("S5 H5 D5 JK@C5")))
    g3 = new_game(APP, ["S5 H5 D5 C5 S9", "S6", "H6", "D6"])
    assert EventKind.REVOLUTION in kinds(g3.step(Move.parse("S5 H5 D5 C5")))


@pytest.mark.parametrize(("hand", "play", "field", "forbidden"), [
    ("S2", "S2", None, True), ("JK", "JK", None, True), ("S8", "S8", None, True),
    ("S3", "S3", "JK", True),  # ♠3 return
    ("S6 H6 D6 C6", "S6 H6 D6 C6", None, False),  # a revolution is no forbidden finish here
    ("SK", "SK", None, False),
])
def test_app_forbidden_finish_takes_the_lowest_free_place(hand: str, play: str,
                                                          field: str | None,
                                                          forbidden: bool) -> None:
    g = new_game(APP, [hand, "C4 C9", "D4 DT", "H4 HT"])
    if field:
        g.field, g.owner = Move.parse(field), 3
    r = g.step(Move.parse(play))
    assert r.judgement.accepted
    assert (g.bottom == [0]) == forbidden and (g.finished == [0]) != forbidden


def test_app_exchange_and_titles_by_player_count() -> None:
    assert APP.with_rules(players=3).exchange_pairs() == [(0, 2, 1)]
    assert APP.exchange_pairs() == [(0, 3, 2), (1, 2, 1)]
    assert APP.with_rules(players=5).exchange_pairs() == [(0, 4, 2), (1, 3, 1)]
    assert class_titles(APP.with_rules(players=5))[2] == "heimin"
    assert class_titles(APP.with_rules(players=3)) == ("1st", "2nd", "3rd")
    with pytest.raises(ValueError, match="players"):
        ruleset_from("app", ["players=6"])


def test_app_groups_two_to_four_and_sequences_by_lowest_card() -> None:
    g = new_game(APP, ["S5 H5 D5 C5 JK S9", "S6 S7 S8 H3", "H4"])
    assert verdict(g, "S5 H5 D5 C5 JK@X5") is Reject.GROUP_TOO_LARGE
    g2 = new_game(APP, ["S3 S4 S5 C9", "H4 H5 H6 D7", "HQ"])
    step(g2, "S3 S4 S5")
    assert verdict(g2, "H4 H5 H6") is None


def test_app_local_rules_are_off_by_default() -> None:
    assert not any(getattr(APP, k) for k in (
        "miyako_ochi", "five_skip", "seven_pass", "ten_discard", "nine_reverse", "geki_shibari",
        "sandstorm", "ambulance", "revolution_joker_counts"))


# === thirteenth floor ===========================================================================
def test_13f_deals_seven_each_the_rest_is_the_pile() -> None:
    setup = MatchState(THIRTEENTH_FLOOR, seed=4, games=1).setup_game()
    assert [len(h) for h in setup.hands] == [7] * 4 and len(setup.pile) == 26
    g = setup.start()
    everything = CardSet.of(g.pile)
    for h in g.hands:
        assert not (everything.without_jokers & h.without_jokers)
        everything = everything | h.without_jokers
    assert len(everything.without_jokers) == 52
    assert sum(h.jokers for h in g.hands) + sum(c >= 60 for c in g.pile) == 2


def test_13f_first_game_draw_highest_number_leads_ties_redraw() -> None:
    # pile top first: p0 K, p1 K (tie), p2 4, p3 2 -> p0 and p1 redraw: 5, Q -> p1
    pile = pile_cards("SK HK S4 S2 S5 SQ")
    lead = draw_for_lead((0, 1, 2, 3), 0, pile, random.Random(0))
    assert lead.first == 1 and len(lead.draws) == 6
    assert lead.pile is not None and sorted(lead.pile) == sorted(pile)
    setup = MatchState(THIRTEENTH_FLOOR, seed=8, games=1).setup_game()
    g = setup.start()
    again = draw_for_lead(setup.seats, setup.seats.index(setup.dealer), setup.pile,
                          random.Random(0))
    assert len(setup.lead_draws) >= 4 and again.draws == setup.lead_draws
    assert g.turn == again.first and sorted(g.pile) == sorted(setup.pile)


def test_13f_pass_draws_as_many_cards_as_the_field_then_may_play() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["H6 D6 SK CK", "H4 S7 DQ", "SQ HQ DJ", "D4 C4 DK"],
                 pile="DK C7 HA HJ")
    step(g, "H6 D6")
    r = g.step(PASS)
    assert [e.value for e in r.events if e.kind is EventKind.DRAW] == [2]
    assert g.hands[1] == CardSet.parse("H4 S7 C7 DQ DK") and g.turn == 1 and g.after_draw
    assert "S7 C7" in legal(g) and "pass" in legal(g)
    r = g.step(Move.parse("S7 C7"))
    assert r.judgement.accepted and g.turn == 2 and not g.after_draw and g.passed == 0


def test_13f_declining_after_the_draw_is_a_pass() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["H6 D6 SK CK", "H4 S7 DQ", "SQ HQ DJ", "D4 C4 DK"],
                 pile="DK C7 HA HJ")
    step(g, "H6 D6", "pass")
    r = g.step(PASS)
    assert EventKind.DRAW not in kinds(r) and g.turn == 2 and g.passed >> 1 & 1
    assert len(g.hands[1]) == 5


def test_13f_turn_moves_on_when_the_draw_does_not_help_and_one_may_pass_when_able() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["H6 D6 SK CK", "H4 S7 DQ", "SQ HQ DJ", "D4 C4 DK"],
                 pile="DA C2 HA HJ")
    step(g, "H6 D6", "pass")
    assert g.turn == 2 and not g.after_draw and g.passed >> 1 & 1 and len(g.hands[1]) == 5
    assert "SQ HQ" in legal(g)
    r = g.step(PASS)  # able to play, passes anyway and draws
    assert [e.value for e in r.events if e.kind is EventKind.DRAW] == [2]


def test_13f_an_empty_pile_gives_nothing() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["H6 D6 SK CK", "H4 S7 DQ", "SQ HQ DJ", "D4 C4 DK"])
    step(g, "H6 D6", "pass")
    assert len(g.hands[1]) == 3 and g.turn == 2


@pytest.mark.parametrize(("hand", "play"), [
    ("S3", "S3"), ("H5", "H5"), ("S8", "S8"), ("C9", "C9"), ("JK", "JK"),
    ("H3 D3 C3", "H3 D3 C3"), ("S9 H9", "S9 H9"), ("H6 H7 JK", "H6 H7 JK@H8"),
    ("S3 S4 S5", "S3 S4 S5"),
])
def test_13f_a_play_holding_a_role_card_may_not_be_the_last(hand: str, play: str) -> None:
    g = new_game(THIRTEENTH_FLOOR, [hand, "SK", "HK", "DK"])
    assert verdict(g, play) is Reject.FORBIDDEN_FINISH
    assert verdict(new_game(THIRTEENTH_FLOOR, ["H3", "SK", "HK", "DK"]), "H3") is None


def test_13f_a_leader_holding_one_role_card_draws_one_and_passes_the_turn() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["S8", "S4 SK", "H4 HK", "D4 DK"], pile="H7 C7")
    assert g.legal_moves() == [PASS]
    r = g.step(PASS)
    assert [e.value for e in r.events if e.kind is EventKind.DRAW] == [1]
    assert g.hands[0] == CardSet.parse("H7 S8") and g.turn == 1 and g.field is None
    assert PASS not in g.legal_moves()  # a leader who can play must play


def test_13f_sandstorm_beats_anything_clears_and_cancels_a_pending_revolution() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["S6 H6 D6 C6 SK", "H3 D3 C3 S4", "HK HQ", "DK DQ"])
    r = g.step(Move.parse("S6 H6 D6 C6"))
    assert EventKind.REVOLUTION_PENDING in kinds(r) and not g.revolution
    assert verdict(g, "H3 D3 C3") is None
    r = g.step(Move.parse("H3 D3 C3"))
    assert EventKind.SANDSTORM in kinds(r) and EventKind.REVOLUTION_CANCELLED in kinds(r)
    assert r.trick_cleared and g.turn == 1 and not g.revolution
    g2 = new_game(THIRTEENTH_FLOOR, ["JK SK", "H3 D3 C3 S4", "HK HQ", "DK DQ"])
    step(g2, "JK")
    assert verdict(g2, "H3 D3 C3") is None and verdict(g2, "S4") is Reject.JOKER_ON_FIELD


def test_13f_three_threes_lead_as_a_sandstorm() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["H3 D3 C3 S4", "HK HQ", "DK DQ", "CK CQ"])
    r = g.step(Move.parse("H3 D3 C3"))
    assert EventKind.SANDSTORM in kinds(r) and r.trick_cleared and g.turn == 0


def test_13f_revolution_takes_effect_after_the_clear_and_parity_decides() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["S6 H6 D6 C6 SK", "S7 H7 D7 C7 H4", "HK HQ", "DK DQ"])
    step(g, "S6 H6 D6 C6")
    assert not g.revolution and verdict(g, "S7 H7 D7 C7") is None  # the order is unchanged
    step(g, "pass", "pass", "pass")
    assert g.field is None and g.revolution
    g2 = new_game(THIRTEENTH_FLOOR, ["S6 H6 D6 C6 SK", "S7 H7 D7 C7 H4", "HK HQ", "DK DQ"])
    step(g2, "S6 H6 D6 C6", "S7 H7 D7 C7")
    assert g2.pending_revolutions == 2
    step(g2, "pass", "pass", "pass")
    assert g2.field is None and not g2.revolution and g2.turn == 1


def test_13f_double_stairs() -> None:
    stairs = Move.parse("ST HT SJ HJ SQ HQ")
    assert stairs.kind is MoveKind.STAIRS and stairs.size == 6 and stairs.steps == 3
    hand = CardSet.parse("ST HT SJ HJ SQ HQ S6")
    assert stairs in all_plays(hand, THIRTEENTH_FLOOR)
    assert stairs not in all_plays(hand, WEB)
    g = new_game(THIRTEENTH_FLOOR, ["ST HT SJ HJ SQ HQ S6", "DJ CJ DQ CQ DK CK S4", "H4",
                                    "D4"])
    r = g.step(stairs)
    assert r.judgement.accepted and EventKind.REVOLUTION_PENDING not in kinds(r)
    assert verdict(g, "DJ CJ DQ CQ DK CK") is None  # lowest J above lowest 10
    assert verdict(g, "DJ DQ DK") is Reject.COUNT_MISMATCH
    g.field = Move.parse("SJ HJ DJ SQ HQ DQ SK HK DK SA HA DA")
    assert verdict(g, "DJ CJ DQ CQ DK CK") is Reject.COUNT_MISMATCH
    # same number of cards, another width (3 suits x 4 ranks against 2 x 6)
    assert beats(g, Move.stairs(0b0011, 5, 6), Move.stairs(0b0111, 1, 4)) is Reject.COUNT_MISMATCH
    assert beats(g, Move.stairs(0b0011, 5, 6), Move.stairs(0b1100, 1, 6)) is None
    four = new_game(THIRTEENTH_FLOOR, ["ST HT SJ HJ SQ HQ SK HK S6", "H4", "D4", "C4"])
    r4 = four.step(Move.parse("ST HT SJ HJ SQ HQ SK HK"))
    assert EventKind.REVOLUTION_PENDING in kinds(r4)  # four steps revolt


def test_13f_two_fives_with_four_players_come_back_to_the_player() -> None:
    """Seed: 4人プレイの場合、5の二枚出しで自分に手番が移るため、疑似的な8切になります."""
    g = new_game(THIRTEENTH_FLOOR, ["S5 H5 S6", "SK", "HK", "DK"])
    r = g.step(Move.parse("S5 H5"))
    assert r.trick_cleared and g.turn == 0 and g.field is None
    g1 = new_game(THIRTEENTH_FLOOR, ["S5 H6 S6", "SK", "HK", "DK"])
    g1.step(Move.parse("S5"))
    assert g1.turn == 2


def test_13f_nines_reverse_once_per_card_and_two_nines_clear() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["S9 H4", "SK DQ", "HK CQ", "DK SQ"])
    r = g.step(Move.parse("S9"))
    assert g.direction == -1 and g.turn == 3 and EventKind.REVERSE in kinds(r)
    g2 = new_game(THIRTEENTH_FLOOR, ["S9 H9 H4", "SK DQ", "HK CQ", "DK SQ"])
    r2 = g2.step(Move.parse("S9 H9"))
    assert g2.direction == 1 and EventKind.AMBULANCE in kinds(r2) and r2.trick_cleared
    g3 = new_game(THIRTEENTH_FLOOR, ["SA HA S4", "S9 H9 H4", "HK CQ", "DK SQ"])
    step(g3, "SA HA")
    assert verdict(g3, "S9 H9") is Reject.NOT_STRONGER  # no "beats anything" here


def test_13f_a_joker_as_eight_cuts() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["S6 S7 JK H4", "SK DQ", "HK CQ", "DK SQ"])
    r = g.step(Move.parse("S6 S7 JK@S8"))
    assert EventKind.EIGHT_CUT in kinds(r) and r.trick_cleared and g.turn == 0


def test_13f_nobody_leads_three_times_in_a_row() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["H4 H6 H7 SK", "S4 DQ", "D4 CQ", "C4 SQ"])
    for lead in ("H4", "H6"):
        step(g, lead, "pass", "pass", "pass")
        assert g.field is None
    assert g.turn == 1 and g.lead_streak == (0, 2)


def test_13f_game_ends_when_the_first_player_goes_out_and_scores_cards() -> None:
    hands = ["SK HK", "S3 H4 JK", "D9 CK", "HA"]
    g = new_game(THIRTEENTH_FLOOR, hands)
    r = g.step(Move.parse("SK HK"))
    assert g.over and EventKind.GAME_OVER in kinds(r)
    assert g.scores == (-260, 74, 33, 1)
    assert g.places() == [0, 3, 2, 1]
    uno = new_game(ruleset_from("thirteenth_floor", ["uno_scoring=yes"]), hands)
    uno.step(Move.parse("SK HK"))
    assert uno.scores == (-108, 74, 33, 1) and sum(uno.scores) == 0


def test_13f_match_points_are_penalties_and_the_worst_scorer_leads() -> None:
    match = MatchState(THIRTEENTH_FLOOR, seed=12, games=3)
    rng = random.Random(12)
    g = play_out(match, rng)
    scores = g.scores
    assert scores is not None and list(match.points) == list(scores)
    worst = max(range(4), key=lambda p: (scores[p], g.places()[p]))
    setup = match.setup_game()
    assert not setup.transfers and setup.start().turn == worst
    order = match.standings()
    assert match.points[order[0]] == min(match.points)


def test_13f_sequences_follow_from_one_rank_above_the_lowest() -> None:
    g = new_game(THIRTEENTH_FLOOR, ["S4 S6 S7 HK", "H7 HT HJ HQ", "H4", "D4"])
    g.field, g.owner, g.turn = Move.parse("S4 S5 S6"), 0, 1
    assert verdict(g, "HT HJ HQ") is None
    g.field = Move.parse("HT HJ HQ")
    g.hands[1] = CardSet.parse("SJ SQ SK HA")
    assert verdict(g, "SJ SQ SK") is None


def test_lone_joker_constants_unchanged() -> None:
    assert LONE_JOKER.kind is MoveKind.JOKER and str(JOKER_PAIR) == "JK JK"


# === readings the documents leave open (docs/RULES.md) ==========================================
def test_13f_a_sandstorm_after_a_spade3_return_is_played_in_turn() -> None:
    """Q3: the ♠3 clears at once and its player leads, so nobody answers the ♠3 itself; the
    sandstorm comes in turn, on the next trick, and the turn goes to its player."""
    g = new_game(THIRTEENTH_FLOOR, ["JK SK S6", "S3 H6 SQ", "H3 D3 C3 HK", "DK DQ"])
    step(g, "JK")
    r = g.step(Move.parse("S3"))
    assert EventKind.SPADE3_RETURN in kinds(r) and r.trick_cleared
    assert g.turn == 1 and g.field is None  # the ♠3's player leads; p2 had no say
    step(g, "H6")
    r = g.step(Move.parse("H3 D3 C3"))
    assert EventKind.SANDSTORM in kinds(r) and r.trick_cleared and g.turn == 2
    lead = new_game(THIRTEENTH_FLOOR, ["JK SK S6", "S3 H3 D3 C3 H6", "HK", "DK DQ"])
    step(lead, "JK", "S3")
    r = lead.step(Move.parse("H3 D3 C3"))  # the ♠3's player may lead a sandstorm itself
    assert EventKind.SANDSTORM in kinds(r) and r.trick_cleared and lead.turn == 1


def test_13f_a_follow_must_be_of_the_fields_kind() -> None:
    """The seed names only the count and the strength; a run of three never answers a group
    of three, nor a group a run."""
    g = new_game(THIRTEENTH_FLOOR, ["S6 H6 D6 SK", "HT HJ HQ H4", "H4 D4 C4 HK", "DK DQ"])
    step(g, "S6 H6 D6")
    assert verdict(g, "HT HJ HQ") is Reject.KIND_MISMATCH
    g2 = new_game(THIRTEENTH_FLOOR, ["S4 S6 S7 SK", "HT DT CT H4", "H4 D4 C4 HK", "DK DQ"])
    g2.field, g2.owner, g2.turn = Move.parse("S6 S7 S8"), 0, 1
    assert verdict(g2, "HT DT CT") is Reject.KIND_MISMATCH


@pytest.mark.parametrize(("rules", "hands", "lead"), [
    # the 13th floor: one role card left, so the leader draws one and passes
    (THIRTEENTH_FLOOR, ["S8", "S4 SK", "H4 HK", "D4 DK"], "pass"),
    # original: a leader may pass of its own will
    (ORIGINAL.with_rules(players=4), ["S4 S9 SK", "H5 D5 HQ", "H9 DJ", "S6 CQ"], "pass"),
])
def test_a_leader_who_passes_on_an_empty_field_sits_out_the_next_trick(
        rules: object, hands: list[str], lead: str) -> None:
    g = new_game(rules, hands, pile="H7 C7")  # type: ignore[arg-type]
    assert verdict(g, lead) is None
    step(g, lead)
    assert g.turn == 1 and g.field is None and g.passed & 1
    seen: list[int] = []
    while g.field is not None or not seen:  # the trick player 1 leads, until it clears
        seen.append(g.turn)
        g.step(min(g.legal_moves(), key=lambda m: (m.is_pass, m.low)) if g.turn == 1
               else (PASS if PASS in g.legal_moves() else g.legal_moves()[0]))
        if g.after_draw:
            g.step(PASS)
    assert 0 not in seen and len(seen) >= 3  # the trick went round without player 0
    assert not g.passed & 1  # back in once it cleared


def test_13f_the_winner_scores_minus_ten_times_its_last_play() -> None:
    """The −10× bonus is on; under uno_scoring the winner gets minus the others' sum only."""
    hands = ["HT HJ HQ", "S3 H4 JK", "D9 CK", "HQ"]
    g = new_game(THIRTEENTH_FLOOR, hands)
    g.step(Move.parse("HT HJ HQ"))
    assert g.over and g.scores == (-330, 74, 33, 12)
    single = new_game(THIRTEENTH_FLOOR, ["HA", *hands[1:]])
    single.step(Move.parse("HA"))
    assert single.scores == (-10, 74, 33, 12)  # an ace's number is 1
    uno = new_game(ruleset_from("thirteenth_floor", ["uno_scoring=yes"]), hands)
    uno.step(Move.parse("HT HJ HQ"))
    assert uno.scores == (-119, 74, 33, 12) and sum(uno.scores) == 0
