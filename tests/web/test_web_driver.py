"""The browser game's driver, seats and settings without a browser: every preset and player
count plays through the engine and writes a log that ``replay --verify`` accepts; a person's
seat refuses bad answers and hands over to its CPU the moment the person leaves."""

from __future__ import annotations

import io
import json

import pytest
import trio
from daihinmin.contract.view import Bot, GameView
from daihinmin.players.registry import make_bot
from daihinmin.records.matchlog import (
    MatchEnd,
    MatchHeader,
    MatchLogWriter,
    PlayerInfo,
    parse_lines,
)
from daihinmin.records.replay import verify_log
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import PRESETS, RuleConfigError, ruleset_to_dict
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from daihinmin.web.driver import Seat, play_game
from daihinmin.web.page_snapshot import snapshot
from daihinmin.web.seats import BadAnswerError, CpuSeat, PersonSeat
from daihinmin.web.settings import (
    level_bot,
    player_counts,
    presets_json,
    table_games,
    table_rules,
)
from daihinmin.web.tables import Place, Table

PLAYER_COUNTS = [(name, n) for name, rules in PRESETS.items() for n in player_counts(rules)]


def play_logged(rules, games: int, seats: list[Seat], seed: int = 3) -> str:
    """Play ``games`` through the web driver; the match log's text."""
    out = io.StringIO()
    writer = MatchLogWriter(out)
    writer.write_header(MatchHeader(ruleset_to_dict(rules), seed, games,
                                    [PlayerInfo(p, f"s{p}", 0) for p in range(rules.players)],
                                    "now"))
    match = MatchState(rules, seed=seed, games=games)

    async def main() -> None:
        while not match.finished:
            writer.write_game(await play_game(match, seats, lambda live: None))

    trio.run(main)
    writer.write_end(MatchEnd(games, list(match.points)))
    return out.getvalue()


@pytest.mark.parametrize(("preset", "players"), PLAYER_COUNTS)
def test_every_preset_and_player_count_plays_and_verifies(preset: str, players: int) -> None:
    rules = table_rules({"preset": preset, "players": players})
    seats: list[Seat] = [CpuSeat(make_bot("random", seed=p)) for p in range(players)]
    log = parse_lines(play_logged(rules, 2, seats).splitlines(keepends=True))
    summary = verify_log(log)
    assert summary.games == 2 and summary.complete


def test_seven_pass_and_ten_discard_choices_are_logged_and_verified() -> None:
    rules = table_rules({"preset": "uecda", "rules": {"seven_pass": True, "ten_discard": True}})
    seats: list[Seat] = [CpuSeat(make_bot("weakest")) for _ in range(rules.players)]
    text = play_logged(rules, 3, seats)
    assert '"choices"' in text
    assert verify_log(parse_lines(text.splitlines(keepends=True))).complete


class Failing(Bot):
    """Raises on its second play and on every exchange (a bundled bot with a bug)."""

    def __init__(self) -> None:
        self.plays = 0

    def exchange(self, view: GameView, count: int) -> CardSet:
        raise RuntimeError("no exchange")

    def play(self, view: GameView) -> Move:
        self.plays += 1
        if self.plays == 2:
            raise RuntimeError("boom")
        return min(view.legal_moves(), key=lambda m: (m.is_pass, m.low))


def test_a_cpu_that_raises_loses_the_answer_and_the_log_says_so() -> None:
    """As in the in-process runner: a pass answered 8 (the exchange: the rules' pick), with
    the error and fault CRASHED, never a plain pass of its own."""
    seats: list[Seat] = [CpuSeat(Failing())]
    seats += [CpuSeat(make_bot("random", seed=p)) for p in range(1, 5)]
    log = parse_lines(play_logged(table_rules({"preset": "uecda"}), 3, seats, seed=5)
                      .splitlines(keepends=True))
    crashed = [t for g in log.games for t in g.turns if t.fault == "CRASHED"]
    assert len(crashed) == 1 and crashed[0].player == 0 and crashed[0].answer == 8
    assert crashed[0].error == "the bot raised RuntimeError: boom"
    gave = [t for g in log.games for t in g.transfers if t.giver == 0 and not t.automatic]
    assert gave and all(t.fault == "CRASHED" and t.substituted for t in gave)
    assert verify_log(log).complete


def test_settings_follow_the_presets() -> None:
    menu = presets_json()
    assert menu["web"]["rounds"] == [3, 5, 7] and menu["web"]["player_counts"] == [3, 4]
    assert menu["uecda"]["player_counts"] == [3, 4, 5]
    assert menu["original"]["player_counts"] == [3, 4, 5, 6]
    assert [t["key"] for t in menu["web"]["toggles"][:7]] == [
        "revolution", "eight_cut", "spade3_return", "lock", "miyako_ochi", "eleven_back",
        "forbidden_finish"]
    assert table_rules({"preset": "web", "rules": {"forbidden_finish": "last"}}) \
        .forbidden_finish.value == "last"
    assert table_games({"preset": "web", "games": 7}) == 7
    for bad in ({"preset": "web", "players": 5}, {"preset": "nope"},
                {"preset": "web", "rules": {"players": 3}},
                {"preset": "web", "rules": {"eight_cut": "maybe"}}):
        with pytest.raises(RuleConfigError):
            table_rules(bad)
    with pytest.raises(RuleConfigError):
        table_games({"preset": "web", "games": 4})
    assert level_bot("intermediate", PRESETS["web"]) == "default"
    assert level_bot("advanced", PRESETS["uecda"]) == "mc"
    assert level_bot("advanced", PRESETS["web"]) == "mc"  # players/levels.py
    assert level_bot("advanced", PRESETS["app"]) == "mc"
    assert level_bot("advanced", PRESETS["thirteenth_floor"]) == "mc"
    assert level_bot("advanced", PRESETS["uecda"].with_rules(sequence_min=6)) == "weakest"
    with pytest.raises(RuleConfigError):
        level_bot("grandmaster", PRESETS["web"])


def test_person_seat_refuses_bad_answers_and_the_cpu_takes_over_on_leaving() -> None:
    """A stale, forged or out-of-turn answer is refused with a reason; when the person
    leaves during their turn the stand-in answers at once and the turn is marked as its."""
    rules = table_rules({"preset": "web"})
    changes = []
    person = PersonSeat("Ada", CpuSeat(make_bot("weakest")), lambda: changes.append(1))
    seats: list[Seat] = [person] + [CpuSeat(make_bot("random", seed=p)) for p in range(1, 4)]
    match = MatchState(rules, seed=9, games=1)
    refused: list[str] = []

    async def the_person() -> None:
        person.connect()
        with pytest.raises(BadAnswerError, match="not your turn"):
            person.answer(1, {"type": "play", "move": 0})
        while person.prompt is None:
            await trio.sleep(0.001)
        prompt = person.prompt
        for pid, message in ((prompt.id - 1, {"type": "play", "move": 0}),
                             (prompt.id, {"type": "play", "move": 999}),
                             (prompt.id, {"type": "play", "move": True}),
                             (prompt.id, {"type": "exchange", "cards": [4]})):
            with pytest.raises(BadAnswerError) as info:
                person.answer(pid, message)
            refused.append(str(info.value))
        person.answer(prompt.id, {"type": "play", "move": 0})  # a legal answer is taken
        while (person.prompt is None or person.prompt.id == prompt.id) and not match.results:
            await trio.sleep(0.001)
        person.disconnect()  # leaves during the next turn

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(the_person)
            record = await play_game(match, seats, lambda live: None)
        own = [t for t in record.turns if t.player == 0 and t.by is None]
        stood_in = [t for t in record.turns if t.player == 0 and t.by == "fallback"]
        assert len(own) == 1 and stood_in and record.stand_in == [0]

    trio.run(main)
    assert "earlier question" in refused[0] and "no such move" in refused[1]
    assert "no such move" in refused[2] and "not a 'exchange'" in refused[3]


def test_snapshot_shows_only_the_own_hand() -> None:
    rules = table_rules({"preset": "web"})
    table = Table("t", "cpu", rules, 1, "beginner", "random", seed=5)
    table.places = [Place(i, f"p{i}", cpu="random") for i in range(4)]
    match = MatchState(rules, seed=5, games=1)
    seen: list[dict] = []

    def publish(live) -> None:
        table.live = live
        state = live.state
        for p in range(4):
            shown = snapshot(table, p)
            if state is not None:
                assert [c["id"] for c in shown["hand"]] == sorted(
                    state.hands[p], key=lambda c: (c >= 60, c))
                others = set().union(*(set(state.hands[q]) for q in range(4) if q != p))
                public = json.dumps({k: v for k, v in shown.items()
                                     if k not in ("hand", "field", "last")})
                assert '"cards"' not in public and '"hand"' not in public
                assert not others & {c["id"] for c in shown["hand"] if c["id"] < 60}
            seen.append(shown)
        assert "hand" not in snapshot(table, None)

    seats: list[Seat] = [CpuSeat(make_bot("random", seed=p)) for p in range(4)]
    trio.run(lambda: play_game(match, seats, publish))
    assert len(seen) > 40


@pytest.mark.usefixtures("mc_compiled")  # an MCBot's constructor loads the Numba code
def test_advanced_cpu_seats_think_as_long_as_the_strong_level() -> None:
    """The browser's advanced mc seats get the level's thinking time (500 ms), not the
    bot's default 250 ms; other levels' bots take no options."""
    from daihinmin.players.levels import STRONG_MOVE_MS
    from daihinmin.players.mc.bot import MCBot

    rules = table_rules({"preset": "web"})
    table = Table("t", "cpu", rules, 1, "advanced", "mc", seed=5)
    table.places = [Place(i, f"p{i}", cpu="mc") for i in range(4)]
    bots = [seat.bot for seat in table._seats() if isinstance(seat, CpuSeat)]
    assert len(bots) == 4 and all(isinstance(b, MCBot) for b in bots)
    assert all(b.budget.time_ms == STRONG_MOVE_MS for b in bots if isinstance(b, MCBot))
    assert Table("t", "cpu", rules, 1, "beginner", "random", seed=5)._cpu_options() == {}


def test_web_command_refuses_a_bad_port_and_a_port_in_use() -> None:
    import socket
    import subprocess
    import sys

    bad = subprocess.run([sys.executable, "-m", "daihinmin.tools", "web", "--port", "70000"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--port" in bad.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run([sys.executable, "-m", "daihinmin.tools", "web", "--port",
                               str(port)], capture_output=True, text=True, timeout=60)
    assert busy.returncode == 1
    assert busy.stderr.strip().splitlines() == [
        f"daihinmin web: cannot listen on 127.0.0.1:{port}: Address already in use"]


def test_published_tables_never_show_hands_unless_the_host_allows() -> None:
    from daihinmin.web.feeds import Feed, FeedError

    hello = {"type": "hello", "source": "match", "rules": "uecda", "players": 3, "games": 1}
    snapshot_ = {"type": "state", "status": "playing", "hand": [{"id": 4}],
                 "prompt": {"id": 1}, "you": 2,
                 "seats": [{"player": p, "hand": [{"id": 8 + p}]} for p in range(3)]}
    hidden = Feed.from_hello("a", json.dumps(hello))
    hidden.update(json.dumps(snapshot_))
    assert "hand" not in hidden.latest and "prompt" not in hidden.latest
    assert hidden.latest["you"] is None and hidden.latest["mode"] == "watch"
    assert all("hand" not in seat for seat in hidden.latest["seats"])
    shown = Feed.from_hello("b", json.dumps({**hello, "hands_shown": True}))
    shown.update(json.dumps(snapshot_))
    assert [seat["hand"] for seat in shown.latest["seats"]] == [[{"id": 8}], [{"id": 9}],
                                                                [{"id": 10}]]
    for bad in ("[1]", "{", json.dumps({"type": "state", "seats": [{}]})):
        with pytest.raises(FeedError):
            hidden.update(bad)
    with pytest.raises(FeedError):
        Feed.from_hello("c", json.dumps({"type": "hello", "players": 9, "games": 1}))


def test_a_published_match_keeps_only_the_last_games_scores() -> None:
    """Memory stays flat however long a published match runs: the snapshot lists the last
    SCORE_ROWS games, and the totals count every game."""
    from daihinmin.driver.record import GameRecord
    from daihinmin.watch.publish import SCORE_ROWS, TablePublisher

    async def main() -> TablePublisher:
        publisher = TablePublisher("ws://127.0.0.1:1/publish", PRESETS["uecda"], 500, "match")
        totals = [0] * 5
        for game in range(1, SCORE_ROWS + 31):
            points = [5, 4, 3, 2, 1]
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            publisher.game_finished(GameRecord(game, [0, 1, 2, 3, 4], 0, None, [],
                                               places=[0, 1, 2, 3, 4], points=points,
                                               totals=totals))
        return publisher

    publisher = trio.run(main)
    scores = publisher.latest["scores"]
    assert len(scores) == SCORE_ROWS and scores[-1]["game"] == SCORE_ROWS + 30
    assert scores[0]["game"] == 31 and publisher.latest["totals"][0] == 5 * (SCORE_ROWS + 30)
