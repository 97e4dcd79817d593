"""Scenario tests of the rule toggles one by one (mostly the ``app`` local rules), the
follow-up choice API (7-pass, 10-discard), both forms of the forbidden finish, and the
rule-set configuration (aliases, validation)."""

from __future__ import annotations

import pytest
from daihinmin.contract.view import GameView
from daihinmin.rules.choices import ChoiceKind
from daihinmin.rules.events import EventKind
from daihinmin.rules.game import (
    ChoicePendingError,
    NoChoicePendingError,
)
from daihinmin.rules.judge import Reject
from daihinmin.rules.ruleset import (
    APP,
    PRESETS,
    UECDA,
    ForbiddenFinish,
    ForbiddenPlays,
    RuleConfigError,
    RuleNotSupportedError,
    RuleSet,
    ruleset_from,
    ruleset_from_dict,
    ruleset_to_dict,
)
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from games import kinds, new_game, step, verdict


def app(*toggles: str) -> RuleSet:
    return ruleset_from("app", list(toggles))


# --- 7-pass and 10-discard: the pending-choice API --------------------------------------------
def test_seven_pass_asks_the_player_to_give_cards_to_the_next_player() -> None:
    g = new_game(app("seven_pass=yes"), ["S7 H3 D4 SK", "H5 HK", "D5 DQ", "C5 CQ"])
    r = g.step(Move.parse("S7"))
    assert EventKind.CHOICE in kinds(r)
    ask = g.pending
    assert ask is not None and ask.kind is ChoiceKind.GIVE and ask.count == 1
    assert ask.player == 0 and ask.receiver == 1 and g.turn == 0
    assert g.legal_moves() == [] and g.judge(PASS).reason is Reject.CHOICE_PENDING
    with pytest.raises(ChoicePendingError):
        g.step(PASS)
    assert [str(c) for c in g.legal_choices()] == ["", "H3", "D4", "SK"]
    done = g.step_choice(CardSet.parse("SK"))
    assert not done.substituted and done.cards == CardSet.parse("SK")
    assert [e.kind for e in done.events] == [EventKind.GIVE]
    assert g.hands[0] == CardSet.parse("H3 D4") and g.hands[1] == CardSet.parse("H5 HK SK")
    assert g.pending is None and g.turn == 1 and g.field == Move.parse("S7")
    with pytest.raises(NoChoicePendingError):
        g.step_choice(None)


def test_seven_pass_gives_up_to_the_number_of_sevens_and_may_give_nothing() -> None:
    g = new_game(app("seven_pass=yes"), ["S7 H7 H3 D4 SK", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("S7 H7"))
    assert g.pending is not None and g.pending.count == 2
    assert max(len(c) for c in g.legal_choices()) == 2
    g.step_choice(CardSet())
    assert len(g.hands[0]) == 3 and len(g.hands[1]) == 2 and g.turn == 1


@pytest.mark.parametrize("answer", [None, "S2", "H3 D4 SK"])
def test_an_invalid_or_missing_answer_gives_the_weakest(answer: str | None) -> None:
    g = new_game(app("seven_pass=yes"), ["S7 H3 D4 SK", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("S7"))
    done = g.step_choice(None if answer is None else CardSet.parse(answer))
    assert done.substituted and done.cards == CardSet.parse("H3")
    assert g.hands[1] == CardSet.parse("H3 H5 HK")


def test_giving_away_the_last_cards_finishes_the_player() -> None:
    g = new_game(app("seven_pass=yes"), ["S7 H4", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("S7"))
    done = g.step_choice(CardSet.parse("H4"))
    assert EventKind.PLAYER_OUT in [e.kind for e in done.events]
    assert g.finished == [0] and g.turn == 1


def test_seven_pass_after_a_reverse_gives_to_the_new_next_player() -> None:
    rules = app("seven_pass=yes", "nine_reverse=yes")
    g = new_game(rules, ["S7 S8 S9 H4 HA", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("S7 S8 S9"))  # 7, 8-cut, 9-reverse
    assert g.pending is not None and g.pending.receiver == 3 and g.direction == -1
    done = g.step_choice(CardSet.parse("HA"))
    assert EventKind.TRICK_CLEAR in [e.kind for e in done.events]
    assert g.turn == 0 and g.field is None and g.hands[3] == CardSet.parse("C5 CQ HA")


def test_ten_discard_discards_up_to_the_number_of_tens() -> None:
    g = new_game(app("ten_discard=yes"), ["ST HT H3 D4 SK", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("ST HT"))
    ask = g.pending
    assert ask is not None and ask.kind is ChoiceKind.DISCARD and ask.count == 2
    done = g.step_choice(CardSet.parse("H3 D4"))
    assert [e.value for e in done.events if e.kind is EventKind.DISCARD] == [2]
    assert g.hands[0] == CardSet.parse("SK") and g.discarded == CardSet.parse("H3 D4")
    assert g.turn == 1


def test_seven_and_ten_in_one_play_ask_twice_weakest_rank_first() -> None:
    rules = app("seven_pass=yes", "ten_discard=yes", "eight_cut=no")
    g = new_game(rules, ["S7 S8 S9 ST H3 D4 SK", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("S7 S8 S9 ST"))
    assert [c.kind for c in g.choices] == [ChoiceKind.GIVE, ChoiceKind.DISCARD]
    g.step_choice(CardSet.parse("H3"))
    assert g.pending is not None and g.pending.kind is ChoiceKind.DISCARD and g.turn == 0
    g.step_choice(CardSet.parse("D4"))
    assert g.pending is None and g.turn == 1 and g.hands[0] == CardSet.parse("SK")


def test_a_view_lists_the_choices_of_its_player() -> None:
    g = new_game(app("ten_discard=yes"), ["ST H3 SK", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("ST"))
    view = GameView(player=0, hand=g.hands[0], field=g.field, turn_player=0, revolution=False,
                    eleven_back=False, lock=False, counts=g.counts(), classes=(0, 0, 0, 0),
                    seats=g.seats, my_turn=True, rules=g.rules, pending=g.pending)
    assert view.legal_choices() == g.legal_choices()


def test_no_choice_when_the_play_empties_the_hand() -> None:
    g = new_game(app("seven_pass=yes"), ["S7", "H5 HK", "D5 DQ", "C5 CQ"])
    g.step(Move.parse("S7"))
    assert g.pending is None and g.finished == [0]


# --- turn order: 5-skip, 6-/9-reverse --------------------------------------------------------
def test_five_skip_skips_one_player_per_five() -> None:
    g = new_game(app("five_skip=yes"), ["S5 H5 D5 SK", "H6 HK", "D6 DQ", "C6 CQ"])
    r = g.step(Move.parse("S5"))
    assert [e.value for e in r.events if e.kind is EventKind.SKIP] == [1] and g.turn == 2
    g2 = new_game(app("five_skip=yes"), ["S5 H5 D5 SK", "H6 HK", "D6 DQ", "C6 CQ"])
    g2.step(Move.parse("S5 H5"))
    assert g2.turn == 3
    g3 = new_game(app("five_skip=yes"), ["S5 H5 D5 SK", "H6 HK", "D6 DQ", "C6 CQ"])
    r3 = g3.step(Move.parse("S5 H5 D5"))  # every other player skipped: back to the player
    assert r3.trick_cleared and g3.turn == 0


def test_five_skip_counts_only_players_still_in_the_trick() -> None:
    g = new_game(app("five_skip=yes"), ["S4 SK", "H3 HK", "S5 D6 DQ", "C6 CQ"])
    step(g, "S4", "pass")  # player 1 is out of this trick
    g.step(Move.parse("S5"))  # from player 2: skips 3, then 0 gets the turn (1 has passed)
    assert g.turn == 0


def test_nine_reverse_flips_the_direction_once_per_play_in_app() -> None:
    g = new_game(app("nine_reverse=yes"), ["S9 H9 SK", "H6 HK", "D6 DQ", "C6 CQ"])
    r = g.step(Move.parse("S9 H9"))
    assert g.direction == -1 and g.turn == 3 and EventKind.REVERSE in kinds(r)
    step(g, "pass", "pass", "pass")
    assert g.field is None and g.direction == -1  # lasts after the clear


def test_six_reverse() -> None:
    g = new_game(ruleset_from("uecda", ["six_reverse=yes"]), ["S6 SK", "H4 HK", "D4", "C4",
                                                                 "S3"])
    g.step(Move.parse("S6"))
    assert g.direction == -1 and g.turn == 4


# --- geki-shibari, sandstorm, ambulance, joker revolution, 11-back ---------------------------
def test_geki_shibari_locks_to_the_next_rank_of_the_same_suit() -> None:
    g = new_game(app("geki_shibari=yes"), ["H3 SK", "H4 SQ", "H5 DQ", "H6 H7 S6 CQ"])
    step(g, "H3", "H4")
    assert g.lock and not g.geki
    r = g.step(Move.parse("H5"))
    assert g.geki and EventKind.GEKI_ON in kinds(r)
    assert verdict(g, "H7") is Reject.GEKI_SHIBARI
    assert verdict(g, "S6") is Reject.LOCKED
    assert verdict(g, "H6") is None
    step(g, "H6")
    step(g, "pass", "pass", "pass")
    assert g.field is None and not g.geki and not g.lock


def test_geki_shibari_needs_a_lock_first_and_is_off_by_default() -> None:
    g = new_game(app("geki_shibari=yes"), ["H3 SK", "H4 SQ", "S5 DQ", "C6 CQ"])
    step(g, "H3", "H4")
    r = g.step(Move.parse("S5"))  # the next rank but another suit: the lock refuses it
    assert not r.judgement.accepted
    g2 = new_game(APP, ["H3 SK", "H4 SQ", "H5 DQ", "H7 CQ"])
    step(g2, "H3", "H4", "H5")
    assert not g2.geki and verdict(g2, "H7") is None


def test_sandstorm_three_threes_beat_anything_and_clear() -> None:
    g = new_game(app("sandstorm=yes"), ["S2 SK", "H3 D3 C3 SQ", "D4 DQ", "C6 CQ"])
    step(g, "S2")
    r = g.step(Move.parse("H3 D3 C3"))
    assert EventKind.SANDSTORM in kinds(r) and r.trick_cleared and g.turn == 1
    plain = new_game(APP, ["S2 SK", "H3 D3 C3 SQ", "D4 DQ", "C6 CQ"])
    step(plain, "S2")
    assert verdict(plain, "H3 D3 C3") is Reject.COUNT_MISMATCH


def test_ambulance_two_nines_beat_anything_and_clear() -> None:
    g = new_game(app("ambulance=yes"), ["S2 H2 D2 SK", "H9 D9 SQ", "D4 DQ", "C6 CQ"])
    step(g, "S2 H2 D2")
    r = g.step(Move.parse("H9 D9"))
    assert EventKind.AMBULANCE in kinds(r) and r.trick_cleared and g.turn == 1
    g2 = new_game(APP, ["S2 H2 SK", "H9 D9 SQ", "D4 DQ", "C6 CQ"])
    step(g2, "S2 H2")
    assert verdict(g2, "H9 D9") is Reject.NOT_STRONGER


def test_joker_revolution_toggle() -> None:
    hands = ["S5 H5 D5 JK S9", "S6", "H6", "D6"]
    plain = new_game(APP, hands)
    plain.step(Move.parse("S5 H5 D5 JK@C5"))
    on = new_game(app("joker_revolution=yes"), hands)
    on.step(Move.parse("S5 H5 D5 JK@C5"))
    assert (plain.revolution, on.revolution) == (False, True)


def test_eleven_back_under_revolution_restores_the_normal_order() -> None:
    g = new_game(APP, ["SJ S9", "H5 HQ", "H4 DQ", "D3 D6"])
    g.revolution = True
    g.step(Move.parse("SJ"))
    assert g.eleven_back and not g.reversed
    assert verdict(g, "HQ") is None and verdict(g, "H5") is Reject.NOT_STRONGER


def test_a_joker_standing_as_a_jack_flips_only_with_joker_effects() -> None:
    uecda = new_game(ruleset_from("uecda", ["eleven_back=yes"]),
                     ["S9 ST JK C4", "H5", "H4", "D3", "C3"])
    uecda.step(Move.parse("S9 ST JK@SJ"))
    web_like = new_game(APP, ["S9 ST JK C4", "H5", "H4", "D3"])
    web_like.step(Move.parse("S9 ST JK@SJ"))
    assert uecda.eleven_back and not web_like.eleven_back


# --- forbidden finish: both forms, each list ---------------------------------------------------
@pytest.mark.parametrize(("plays", "play", "forbidden"), [
    ("top_play", "S2", True), ("top_play", "S8", False), ("top_play", "S6 H6 D6 C6", False),
    ("web", "S8", True), ("web", "S6 H6 D6 C6", True), ("web", "S3@JK", False),
    ("app", "S8", True), ("app", "S6 H6 D6 C6", False), ("app", "S3@JK", True),
    ("standard", "S3@JK", True), ("standard", "S6 H6 D6 C6", True),
    ("role_cards", "S5", True), ("role_cards", "SK", False),
])
@pytest.mark.parametrize("form", ["reject", "last"])
def test_forbidden_finish_forms_and_lists(plays: str, play: str, forbidden: bool,
                                          form: str) -> None:
    rules = ruleset_from("uecda", [f"forbidden_finish={form}", f"forbidden_plays={plays}",
                                   "players=4"])
    on_joker = play.endswith("@JK")
    cards = play.removesuffix("@JK")
    g = new_game(rules, [cards, "C4 C9", "D4 DT", "H4 HT"])
    if on_joker:
        g.field, g.owner = Move.parse("JK"), 3
    reason = verdict(g, cards)
    if form == "reject":
        assert (reason is Reject.FORBIDDEN_FINISH) == forbidden
    else:
        assert reason is None
        g.step(Move.parse(cards))
        assert (g.bottom == [0]) == forbidden and (g.finished == [0]) != forbidden


def test_forbidden_finish_last_is_judged_on_the_order_before_the_play() -> None:
    """A run holding J and 2 flips 11-back, but it was a 2-play when it was made."""
    rules = ruleset_from("web", ["forbidden_finish=last"])
    g = new_game(rules, ["SJ SQ SK SA S2", "C4 C9", "D4 DT", "H4 HT"])
    r = g.step(Move.parse("SJ SQ SK SA S2"))
    assert EventKind.ELEVEN_BACK in kinds(r) and g.bottom == [0]
    assert ForbiddenPlays("web") is ForbiddenPlays.WEB
    assert ForbiddenFinish("last") is ForbiddenFinish.LAST


# --- draw pile and other toggles on any preset -------------------------------------------------
def test_hand_size_and_draw_on_pass_work_on_other_presets() -> None:
    from daihinmin.rules.match import MatchState

    rules = ruleset_from("app", ["hand_size=8", "draw_on_pass=yes"])
    setup = MatchState(rules, seed=3, games=1).setup_game()
    assert [len(h) for h in setup.hands] == [8] * 4 and len(setup.pile) == 54 - 32


def test_lead_limit_and_leader_may_pass_toggles() -> None:
    rules = ruleset_from("uecda", ["lead_limit=1", "players=4"])
    g = new_game(rules, ["S4 S6 SK", "H3 HK", "D3 DQ", "C3 CQ"])
    step(g, "S4", "pass", "pass", "pass", "pass")
    assert g.field is None and g.turn == 1
    no_pass = ruleset_from("uecda", ["leader_may_pass=no"])
    assert verdict(new_game(no_pass, ["S4", "H3", "D3", "C3", "S3"]), "pass") is (
        Reject.LEADER_MUST_PLAY)


# --- configuration -----------------------------------------------------------------------------
def test_every_toggle_of_every_preset_is_supported() -> None:
    for rules in PRESETS.values():
        assert rules.validate() is rules
    bools = [k for k, v in ruleset_to_dict(UECDA).items() if isinstance(v, bool)]
    for key in bools:
        flipped = "no" if getattr(UECDA, key) else "yes"
        if key == "joker_pair_clears":
            with pytest.raises(RuleNotSupportedError):
                ruleset_from("uecda", [f"{key}={flipped}"])
            ruleset_from("uecda", [f"{key}={flipped}", "jokers=2"])
        else:
            ruleset_from("uecda", [f"{key}={flipped}"])


def test_aliases_and_round_trip() -> None:
    r = ruleset_from("thirteenth_floor", ["uno_scoring=yes", "joker_revolution=no"])
    assert r.scoring.value == "uno" and not r.revolution_joker_counts
    assert ruleset_from("thirteenth_floor", ["uno_scoring=no"]).scoring.value == "cards"
    for rules in PRESETS.values():
        assert ruleset_from_dict(ruleset_to_dict(rules)) == rules


@pytest.mark.parametrize("override", ["players=7", "players=2", "hand_size=14",
                                      "group_max=6", "scoring=cards", "bogus=1",
                                      "forbidden_plays=nope"])
def test_invalid_rule_sets_are_refused(override: str) -> None:
    with pytest.raises(RuleConfigError):
        ruleset_from("uecda", [override])


def test_sequence_order_next_low_needs_exactly_the_next_lowest_rank() -> None:
    g = new_game(ruleset_from("thirteenth_floor", ["sequence_order=next_low"]),
                 ["S4 S6 S7 HK", "H5 H6 H7 D6 D7 D8", "H4", "D4"])
    g.field, g.owner, g.turn = Move.parse("S4 S5 S6"), 0, 1
    assert verdict(g, "H5 H6 H7") is None
    assert verdict(g, "D6 D7 D8") is Reject.NOT_STRONGER


def test_joker_beats_joker_toggle() -> None:
    hands = ["JK C9", "JK SK", "H4 DQ", "D4 C4"]
    rules = ruleset_from("web", ["joker_beats_joker=yes"])
    g = new_game(rules, hands)
    g.step(Move.parse("JK"))
    assert verdict(g, "JK") is None


@pytest.mark.parametrize("name", ["plays", "forbidden", "leads", "scoring", "choices"])
def test_doctests_of_the_new_rules_modules(name: str) -> None:
    import doctest
    import importlib

    module = importlib.import_module(f"daihinmin.rules.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_uecda_at_any_table_size_says_which_points_to_set(players: int) -> None:
    # uecda's points are 5..1: six players need a sixth value, and the error says which.
    try:
        rules = ruleset_from("uecda", [f"players={players}"])
    except RuleConfigError as exc:
        assert players == 6
        wanted = str(exc).split("set ")[1].split(" ")[0]
        assert wanted == "points=6,5,4,3,2,1"
        rules = ruleset_from("uecda", [f"players={players}", wanted])
        assert [rules.points_for_place(p) for p in range(6)] == [6, 5, 4, 3, 2, 1]
    else:
        assert players < 6
    assert ruleset_from("uecda", [f"players={players}", "points="]).players == players
