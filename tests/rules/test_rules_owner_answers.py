"""The devkit's trick clear (``owner_answers``, on in ``uecda``) against the 2013 build's.

The official devkit server clears a trick only when every player still in the game has passed,
the last player who played included: after all the others pass, that player gets one more turn
with its own cards on the field.  The 2013 build (the transcript's server, ``owner_answers=no``)
clears as soon as all the others have passed.  Each consequence has a scenario here.
"""

from __future__ import annotations

import random

from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState, StepResult
from daihinmin.rules.ruleset import (
    PRESETS,
    UECDA,
    RuleSet,
    ruleset_from,
    ruleset_from_dict,
    ruleset_to_dict,
)
from daihinmin.server.tables import turn_state
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move

SEATS = (0, 1, 2, 3, 4)
RULES_2013 = UECDA.with_rules(owner_answers=False)


def new_game(hands: list[str], first: int = 0, rules: RuleSet = UECDA) -> GameState:
    return GameState.start(rules, [CardSet.parse(h) for h in hands], SEATS, random.Random(0),
                           first=first)


def step(g: GameState, *moves: str) -> list[StepResult]:
    return [g.step(Move.parse(m)) for m in moves]


def kinds(result: StepResult) -> list[EventKind]:
    return [e.kind for e in result.events]


def test_presets_follow_their_builds_and_documents() -> None:
    assert UECDA.owner_answers
    assert not any(r.owner_answers for name, r in PRESETS.items() if name != "uecda")
    assert not ruleset_from("uecda", ["owner_answers=no"]).owner_answers


def test_a_logged_rule_set_without_the_key_is_the_2013_behaviour() -> None:
    old = ruleset_to_dict(UECDA)
    del old["owner_answers"]
    assert not ruleset_from_dict(old).owner_answers
    assert ruleset_from_dict(ruleset_to_dict(UECDA)) == UECDA


def test_the_owner_gets_a_turn_table_with_its_own_cards_on_the_field() -> None:
    g = new_game(["S5 C9", "S6 D8", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "S5", "S6", "pass", "pass", "pass", "pass")
    assert g.turn == 1 and g.field == Move.parse("S6")
    state = turn_state(g, (0,) * 5)
    assert state.turn_player == 1 and state.field_empty == 0
    r = g.step(PASS)
    assert r.answer == 8 and r.trick_cleared and g.turn == 1 and g.field is None
    assert turn_state(g, (0,) * 5).field_empty == 1


def test_the_owner_may_play_over_its_own_cards_and_keeps_the_turn() -> None:
    g = new_game(["S5 C9", "S6 D8 ST", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "S5", "S6", "pass", "pass", "pass", "pass")
    r = g.step(Move.parse("ST"))  # over its own S6 (the spades lock holds)
    assert r.answer == 9 and not r.trick_cleared
    assert g.turn == 1 and g.field == Move.parse("ST") and g.owner == 1
    r = g.step(PASS)
    assert r.trick_cleared and g.turn == 1


def test_in_the_2013_build_the_trick_clears_before_the_owner_answers() -> None:
    g = new_game(["S5 C9", "S6 D8 DT", "H4 DA", "C4 CK", "D4 HK"], rules=RULES_2013)
    res = step(g, "S5", "S6", "pass", "pass", "pass", "pass")
    assert res[-1].trick_cleared and g.turn == 1 and g.field is None


def test_a_player_who_plays_when_all_others_have_passed_keeps_the_turn() -> None:
    g = new_game(["S5 C9 HA", "S6 D8", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "S5", "pass", "pass", "pass", "pass")  # everyone but p0 passed
    assert g.turn == 0 and g.field == Move.parse("S5")
    r = g.step(Move.parse("C9"))
    assert not r.trick_cleared and g.turn == 0 and g.field == Move.parse("C9")


def test_going_out_on_the_play_needs_no_answer_from_the_player_who_left() -> None:
    g = new_game(["S5", "S6 DT", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "pass", "S6", "pass", "pass")  # p0 passed on the lead; p1 plays over the field
    r = g.step(PASS)  # p4: everyone left but p1 has passed; p1 answers
    assert not r.trick_cleared and g.turn == 1
    r = g.step(Move.parse("DT"))  # p1 goes out over its own S6
    assert EventKind.PLAYER_OUT in kinds(r)
    assert r.trick_cleared and g.field is None and g.turn == 2  # the next seat with cards


def test_going_out_while_others_still_wait_asks_every_remaining_player() -> None:
    g = new_game(["S5 C9", "S6", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "S5")
    r = g.step(Move.parse("S6"))  # p1 goes out
    assert EventKind.PLAYER_OUT in kinds(r) and g.turn == 2
    res = step(g, "pass", "pass", "pass")  # p2, p3, p4
    assert not any(x.trick_cleared for x in res) and g.turn == 0
    r = g.step(PASS)  # p0, the last one waiting
    assert r.trick_cleared and g.turn == 2  # p1 is out: the next seat leads


def test_passes_on_an_empty_field_need_every_player_the_leader_included() -> None:
    g = new_game(["S5 C9", "S6 D8", "H4 DA", "C4 CK", "D4 HK"])
    res = step(g, "pass", "pass", "pass", "pass")
    assert not any(r.trick_cleared for r in res) and g.turn == 4
    r = g.step(PASS)
    assert r.trick_cleared and g.turn == 0 and g.failures == 5


def test_the_owners_pass_counts_towards_the_twenty_failures() -> None:
    g = new_game(["S5 C9", "S6 D8", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "S5")
    results = []
    while not g.over:
        results.append(g.step(PASS))
    # 4 others, then the owner: each trick of passes is 5 failures long
    assert len(results) == 20 and sum(r.trick_cleared for r in results) == 3
    assert EventKind.PASS_LIMIT in kinds(results[-1])


def test_an_eight_cut_clears_at_once_without_an_answer() -> None:
    g = new_game(["S5 S8 C9", "S6 D8", "H4 DA", "C4 CK", "D4 HK"])
    r = step(g, "S5", "pass", "pass", "pass", "pass")[-1]
    assert g.turn == 0 and not r.trick_cleared
    r = g.step(Move.parse("S8"))  # over its own S5
    assert EventKind.EIGHT_CUT in kinds(r) and r.trick_cleared and g.turn == 0


def test_the_spade_three_over_the_owners_lone_joker_clears_at_once() -> None:
    g = new_game(["JK S3 C9", "S6 D8", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "JK", "pass", "pass", "pass", "pass")
    assert g.turn == 0 and g.field is not None
    r = g.step(Move.parse("S3"))
    assert EventKind.SPADE3_RETURN in kinds(r) and r.trick_cleared and g.turn == 0


def test_the_owner_playing_the_same_suits_again_turns_the_lock_on() -> None:
    g = new_game(["S5 S9 C9", "H6 D8", "H4 DA", "C4 CK", "D4 HK"])
    step(g, "S5", "pass", "pass", "pass", "pass")
    r = g.step(Move.parse("S9"))
    assert g.lock and EventKind.LOCK_ON in kinds(r) and g.turn == 0
    r = g.step(PASS)
    assert r.trick_cleared and not g.lock


def test_eleven_back_on_the_owners_answer_lasts_until_the_clear() -> None:
    rules = ruleset_from("uecda", ["eleven_back=yes"])
    g = new_game(["S5 SJ C9", "H6 D8", "H4 DA", "C4 CK", "D4 HK"], rules=rules)
    step(g, "S5", "pass", "pass", "pass", "pass")
    r = g.step(Move.parse("SJ"))
    assert g.eleven_back and EventKind.ELEVEN_BACK in kinds(r) and g.turn == 0
    r = g.step(PASS)
    assert r.trick_cleared and not g.eleven_back
