"""Protocol 20260 cell layout, choice answers, and which rule sets need the extension."""

from __future__ import annotations

import doctest
import importlib

import pytest
from daihinmin.protocol.codec import TableState, build_deal, build_profile, read_state
from daihinmin.protocol.errors import BadCellError, BadCellValueError, TooManyJokersError
from daihinmin.protocol.extension import (
    NOBODY,
    PROTOCOL_20260,
    ChoiceCountError,
    ExtState,
    build_choice_answer,
    ext_cells,
    is_choice_table,
    read_choice_answer,
    read_ext,
)
from daihinmin.protocol.table import Table
from daihinmin.rules.extension_rules import (
    adopt_rules,
    extension_reasons,
    preset_id,
    rule_args,
    rules_digest,
)
from daihinmin.rules.ruleset import PRESETS, UECDA, ruleset_from
from daihinmin.server.handshake import profile_version
from daihinmin.values.cards import CardSet
from hypothesis import given
from hypothesis import strategies as st

MODULES = ["daihinmin.protocol.extension", "daihinmin.rules.extension_rules",
           "daihinmin.client.extension", "daihinmin.driver.record"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@st.composite
def ext_states(draw: st.DrawFn) -> ExtState:
    n = draw(st.integers(3, 6))
    seats = tuple(draw(st.permutations(range(n))))
    places = draw(st.one_of(st.just(()), st.lists(st.integers(0, n), min_size=n, max_size=n)
                            .filter(any).map(tuple)))
    kind = draw(st.integers(0, 2))
    return ExtState(
        players=n, preset=draw(st.integers(0, 4)), digest=draw(st.integers(0, 2**32 - 1)),
        jokers=draw(st.integers(0, 2)),
        counts=tuple(draw(st.lists(st.integers(0, 54), min_size=n, max_size=n))),
        classes=tuple(draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))),
        seats=seats, pile=draw(st.integers(0, 40)), passed=draw(st.integers(0, 2**n - 1)),
        direction=draw(st.integers(0, 1)), geki=draw(st.integers(0, 1)),
        flags=draw(st.integers(0, 7)), places=places, choice_kind=kind,
        choice_count=draw(st.integers(1, 4)) if kind else 0,
        choice_receiver=draw(st.integers(0, n - 1)) if kind else 0)


@given(ext_states())
def test_extension_cells_round_trip_and_leave_the_20070_cells_alone(ext: ExtState) -> None:
    base = build_deal(CardSet.parse("S3 JK"), TableState(counts=ext.counts[:5],
                                                         seats=ext.seats[:5]), give=0)
    table = base.with_cells(ext_cells(ext))
    assert read_ext(Table.from_bytes(table.to_bytes(PROTOCOL_20260), PROTOCOL_20260)) == ext
    assert table.row(5)[:8] == base.row(5)[:8]  # [5][0..7] keep their 20070 meaning
    assert table.nonzero() == base.nonzero()  # the card rows are untouched
    assert is_choice_table(table) == (ext.choice_kind != 0)
    n = ext.players
    row6 = table.row(6)
    assert all(row6[10 + i] == NOBODY for i in range(n, 5))  # empty seat slots
    assert all(row6[i] == 0 for i in range(n, 5))


def test_six_players_put_player_5_in_row_7() -> None:
    ext = ExtState(players=6, preset=1, digest=1, jokers=2, counts=(9, 9, 9, 9, 9, 8),
                   classes=(5, 4, 3, 2, 1, 0), seats=(1, 2, 3, 4, 5, 0))
    table = Table.zeros().with_cells(ext_cells(ext))
    assert table.row(7)[:7] == (6, 1, 1, 2, 8, 0, 0)
    assert read_state(table).seats == (1, 2, 3, 4, 5)


@given(st.sets(st.integers(4, 55), max_size=4), st.integers(0, 2))
def test_choice_answers_round_trip(cards: set[int], jokers: int) -> None:
    chosen = CardSet.of(cards) | CardSet.parse(" ".join(["JK"] * jokers))
    table = Table.from_bytes(build_choice_answer(chosen).to_bytes())
    assert read_choice_answer(table, max_cards=len(chosen)) == chosen
    if chosen:
        with pytest.raises(ChoiceCountError):
            read_choice_answer(table, max_cards=len(chosen) - 1)


@pytest.mark.parametrize(("cells", "error"), [
    ({(0, 5): 3}, BadCellValueError),
    ({(4, 5): 1}, BadCellError),
    ({(1, 0): 1}, BadCellError),
    ({(4, 1): 2, (4, 2): 2, (0, 3): 2}, TooManyJokersError),
])
def test_bad_choice_answers_say_what_is_wrong(cells: dict[tuple[int, int], int],
                                              error: type[Exception]) -> None:
    with pytest.raises(error):
        read_choice_answer(Table.zeros().with_cells(cells), max_cards=4)


def test_only_uecda_fits_20070_tables() -> None:
    assert extension_reasons(UECDA) == []
    for name in ("original", "web", "app", "thirteenth_floor"):
        assert extension_reasons(PRESETS[name]), name
    assert "follow-up choices (seven_pass)" in extension_reasons(
        ruleset_from("uecda", ["seven_pass=yes"]))
    assert any("4 players" in r for r in extension_reasons(ruleset_from("uecda",
                                                                         ["players=4"])))
    # Effects that only change judging or whose turn it is stay 20070-compatible.
    assert extension_reasons(ruleset_from("uecda", ["eleven_back=yes", "six_reverse=yes",
                                                    "miyako_ochi=yes"])) == []


OVERRIDES = [[], ["players=3"], ["seven_pass=yes", "ten_discard=yes"],
             ["forbidden_finish=last", "exchange_counts=1"], ["points=9,3,1,0,0,0"]]


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("overrides", OVERRIDES, ids=lambda o: "+".join(o) or "plain")
def test_rule_args_rebuild_the_rules(name: str, overrides: list[str]) -> None:
    try:
        rules = ruleset_from(name, overrides)
    except ValueError:
        pytest.skip("not a valid rule set for this preset")
    args = rule_args(rules)
    base = args[1] if args[:1] == ["--rules"] else "uecda"
    rebuilt = ruleset_from(base, [args[i + 1] for i, a in enumerate(args) if a == "--rule"])
    assert rules_digest(rebuilt) == rules_digest(rules)
    assert preset_id(rules) == preset_id(PRESETS[name])


def test_digest_tells_rule_sets_apart_and_presets_are_adopted() -> None:
    digests = {rules_digest(r) for r in PRESETS.values()}
    assert len(digests) == len(PRESETS)
    web3 = ruleset_from("web", ["players=3"])
    assert adopt_rules(preset_id(web3), rules_digest(web3), 3) == PRESETS["web"].with_rules(
        players=3)
    app7 = ruleset_from("app", ["seven_pass=yes"])
    assert adopt_rules(preset_id(app7), rules_digest(app7), 4) is None  # not a plain preset


def test_the_server_reads_a_20260_profile() -> None:
    assert profile_version(build_profile("ext", PROTOCOL_20260).to_bytes()) == (20260, "ext")
