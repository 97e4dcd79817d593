"""The reference server's kifu: ``replay LOG --kifu FILE`` and ``import-kifu KIFU --log FILE``.

A real match log goes log -> kifu -> log -> kifu: both kifus are equal byte for byte and
every game of the second log equals the first in all the kifu holds.  The reference
server's own kifu (``tests/data/transcript_example.txt``) imports and verifies.  A kifu with
an error is refused naming its line; rules a kifu cannot state exit 2.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from daihinmin.driver.record import GameRecord
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.records.inprocess_log import LocalMatchLog
from daihinmin.records.kifu import KIFU_PASS, cells_text, parse_cells
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.rules.ruleset import UECDA, ruleset_from
from daihinmin.server.config import ServerConfig
from daihinmin.server.errors import ResumeLogError
from daihinmin.server.resume import load_resume
from daihinmin.tools.cli import main
from daihinmin.web.replay_frames import frames_from_file
from hypothesis import given
from hypothesis import strategies as st
from probe import probe_match
from vectors import transcript_text

BOTS = ["default", "greedy", "random", "weakest", "default"]


def reference_kifu() -> str:
    """The kifu tndhms (the 2013 build) wrote of the recorded session: two games."""
    text = transcript_text()
    return text[text.index("%-----%TIME_START%"):]


def local_log(path: Path, games: int, seed: int, rules: object = UECDA) -> Path:
    with LocalMatchLog.open(path, rules, seed=seed, games=games,  # type: ignore[arg-type]
                            names=[f"{b}{p}" for p, b in enumerate(BOTS)]) as log:
        log.finish(play_local_match(rules, seed, games,  # type: ignore[arg-type]
                                    [make_bot(b) for b in BOTS], on_game=log.game))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def kifu_view(game: GameRecord) -> GameRecord:
    """A game as far as a kifu holds it: no think times, banks, seat reports or faults."""
    turns = [replace(t, think_ms=0.0, fault=None, by=None) for t in game.turns]
    transfers = [replace(t, substituted=False, error=None, raw=None, fault=None, by=None)
                 for t in game.transfers]
    return replace(game, turns=turns, transfers=transfers, bank_ms=None, events=[],
                   reports=[], stand_in=[])


def round_trip(log: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    """log -> kifu -> log -> kifu: the second log, after checking both kifus are equal."""
    first, second, back = tmp / "a.log", tmp / "b.log", tmp / "back.jsonl"
    for argv in (["replay", str(log), "--kifu", str(first)],
                 ["import-kifu", str(first), "--log", str(back)],
                 ["replay", str(back), "--kifu", str(second)]):
        code, text = run(capsys, *argv)
        assert code == 0, text
    assert first.read_bytes() == second.read_bytes()
    return first.read_text(), back


# --- the card text ---------------------------------------------------------------------------
cell_sets = st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 14)),
                            st.sampled_from([1, 2]), max_size=12)


@given(cell_sets)
def test_card_text_reads_back(cells: dict[tuple[int, int], int]) -> None:
    text = cells_text(cells)
    back = parse_cells(text)
    assert cells_text(back) == text
    # Row 4 holds only 2s in the text (the server writes any row-4 cell as J); column 14
    # alone in its row reads as column 0 (both are x).
    wanted = {(r, c): 2 if r == 4 else v for (r, c), v in cells.items()}
    lone_14 = {(r, 14) for r in range(5) if [c for (rr, c) in cells if rr == r] == [14]}
    assert {(r, 0 if (r, c) in lone_14 else c): v for (r, c), v in wanted.items()} == back


def test_joker_cells_and_hands() -> None:
    assert parse_cells("KxS3S4") == {(0, 0): 2, (0, 1): 1, (0, 2): 1}  # x before: column 0
    assert parse_cells("SAS2Kx") == {(0, 12): 1, (0, 13): 1, (0, 14): 2}  # after: 14
    assert cells_text({(4, 1): 2, (3, 13): 1}) == "C2J3"  # the joker in a hand


# --- the reference server's kifu -------------------------------------------------------------
def test_reference_kifu_imports_and_verifies(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tndhms.log"
    source.write_text(reference_kifu())
    log = tmp_path / "ref.jsonl"
    code, text = run(capsys, "import-kifu", str(source), "--log", str(log))
    assert code == 0, text
    assert "2 games (incomplete match)" in text  # GAME_NUMBER 10; the excerpt has 2
    code, text = run(capsys, "replay", str(log), "--verify")
    assert code == 0 and "2 games" in text, text
    read = read_match_log(log)
    assert read.header.deals == "recorded" and read.header.seed == 1795992253
    assert read.header.ruleset().owner_answers is False  # change_cards lines: the 2013 build
    assert [p.name for p in read.header.players] == ["std0", "std1", "std2", "std3", "std4"]
    assert [g.totals for g in read.games] == [[3, 1, 2, 5, 4], [6, 3, 3, 10, 8]]
    # Game 2's player 0 goes out with play 68; the 2013 build clears the trick after one pass,
    # the engine asks player 2 too: that pass is marked, and left out of a kifu written again.
    kifu_passes = [(g.game, n) for g in read.games for n, t in enumerate(g.turns, 1)
                   if t.by == KIFU_PASS]
    assert kifu_passes == [(2, 70)]
    again = tmp_path / "again.log"
    code, text = run(capsys, "replay", str(log), "--kifu", str(again))
    assert code == 0, text
    added = {"%-----%hostname% daihinmin", "%-----%RULE_OWNER_ANSWERS% NO"}
    assert [x for x in again.read_text().splitlines() if x not in added] == \
        reference_kifu().splitlines()
    shown = frames_from_file(log)  # the browser replay viewer's reading
    assert [len(g["frames"]) for g in shown["games"]] == [81, 76]


def test_an_imported_log_is_not_resumed(tmp_path: Path) -> None:
    source, log = tmp_path / "k.log", tmp_path / "k.jsonl"
    source.write_text(reference_kifu())
    assert main(["import-kifu", str(source), "--log", str(log)]) == 0
    with pytest.raises(ResumeLogError, match="read from a kifu"):
        load_resume(log)


# --- round trips -----------------------------------------------------------------------------
def test_round_trip_keeps_every_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = local_log(tmp_path / "m.jsonl", games=24, seed=11)
    text, back = round_trip(log, tmp_path, capsys)
    assert "%00023%points%" in text and "%-----%TOTAL_POINT%" in text
    before, after = read_match_log(log), read_match_log(back)
    assert [kifu_view(g) for g in before.games] == [kifu_view(g) for g in after.games]
    assert after.end is not None and after.end.status == "complete"
    assert verify_log(after).complete


def test_round_trip_of_a_log_with_faults(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Bad tables keep their cells; what the kifu cannot hold (faults, the server's picks
    for invalid exchanges) is all that changes."""
    log = tmp_path / "faults.jsonl"
    probe_match(ServerConfig(games=4, seed=31, port=0, log_path=log, fault_limit=0),
                first_seed=7, fault_rate=0.2)
    _, back = round_trip(log, tmp_path, capsys)
    before, after = read_match_log(log), read_match_log(back)
    assert any(t.malformed for g in before.games for t in g.turns)
    for a, b in zip(before.games, after.games, strict=True):
        assert [(t.player, t.move) for t in a.turns] == [(t.player, t.move) for t in b.turns]
        # A table of 0/1/2 that is no move keeps its cells; one with other values is a pass.
        kept = [t.raw for t in a.turns if t.raw and all(v in (1, 2) for *_, v in t.raw)]
        assert kept and kept == [t.raw for t in b.turns if t.raw]
        assert [(t.giver, t.receiver, t.cards) for t in a.transfers] == \
            [(t.giver, t.receiver, t.cards) for t in b.transfers]
        assert (a.places, a.totals, a.hands) == (b.places, b.totals, b.hands)
    assert verify_log(after).games == 4


def test_older_logger_and_later_games(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A kifu without change_cards and points lines (the development kit's logger) has its
    returns worked out from the plays; a kifu that starts at a later game starts there."""
    log = local_log(tmp_path / "m.jsonl", games=8, seed=5)
    kifu, _ = round_trip(log, tmp_path, capsys)
    lines = kifu.splitlines(keepends=True)
    devkit = [x for x in lines if not re.match(r"%\d+%(change_cards|points)%|%-----%("
                                               r"hostname|TIME|TOTAL|RULE_OWNER)", x)]
    older = tmp_path / "devkit.log"
    older.write_text("".join(devkit))
    back = tmp_path / "devkit.jsonl"
    code, text = run(capsys, "import-kifu", str(older), "--log", str(back))
    assert code == 0, text
    read = read_match_log(back)
    assert read.header.ruleset().owner_answers  # no change_cards: the devkit's trick clear
    assert [kifu_view(g) for g in read.games] == \
        [kifu_view(g) for g in read_match_log(log).games]
    later = [x for x in lines if not re.match(r"%0000[0-2]%", x)]
    (tmp_path / "later.log").write_text("".join(later))
    code, text = run(capsys, "import-kifu", str(tmp_path / "later.log"), "--log",
                     str(tmp_path / "later.jsonl"))
    assert code == 0, text
    read = read_match_log(tmp_path / "later.jsonl")
    assert read.header.start is not None and read.header.start["game"] == 4
    assert [g.game for g in read.games] == [4, 5, 6, 7, 8]
    assert verify_log(read).games == 5


# --- refusals --------------------------------------------------------------------------------
def one_line_error(text: str) -> str:
    lines = [x for x in text.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


@pytest.mark.parametrize(("edit", "line", "words"), [
    (lambda t: t.replace("1SADAEE", "2SADAEE", 1), 25, "play 2 is by player 2"),
    (lambda t: t.replace("%00000%result% 34021", "%00000%result% 34012"), 26,
     "finishing order 34012"),
    (lambda t: t.replace("%00000%points% 3 1 2 5 4", "%00000%points% 3 1 2 5 5"), 27,
     "points"),
    (lambda t: t.replace("%00001%mibun% 24301", "%00001%mibun% 24310"), 28, "classes 24310"),
    (lambda t: t.replace("S4STHJ", "S4S4HJ", 1), 23, "out of the table order"),
    (lambda t: t.replace("%00001%seat% 40123", "%00001%seat% 40124"), 29, "players 0..4"),
    (lambda t: t.replace("13DAJ3EE", "13DAC3EE"), 31, "transfer 1 is 1 -> 3: C3 DA"),
    (lambda t: t.replace("%-----%GAME_NUMBER% 10", "%-----%GAME_NUMBER% ten"), 17,
     "GAME_NUMBER"),
    (lambda t: t.replace("%00001%play%", "%00001%pay%"), 32, "unknown game line"),
    (lambda t: t.replace("%00001%", "%00003%"), 28, "game 00003 follows game 00000"),
])
def test_a_bad_kifu_is_refused_naming_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: object, line: int,
        words: str) -> None:
    source = tmp_path / "bad.log"
    source.write_text(edit(reference_kifu()))  # type: ignore[operator]
    target = tmp_path / "bad.jsonl"
    code, text = run(capsys, "import-kifu", str(source), "--log", str(target))
    error = one_line_error(text)
    assert code == 4 and f"bad.log:{line}:" in error and words in error, error
    assert not target.exists()  # no half log is left behind


def test_rules_a_kifu_cannot_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    web = local_log(tmp_path / "web.jsonl", games=1, seed=2,
                    rules=ruleset_from("uecda", ["jokers=2"]))
    code, text = run(capsys, "replay", str(web), "--kifu", str(tmp_path / "w.log"))
    assert code == 2 and "jokers=2 cannot be written in a kifu" in one_line_error(text)
    assert not (tmp_path / "w.log").exists()
    source = tmp_path / "k.log"
    source.write_text(reference_kifu())
    code, text = run(capsys, "import-kifu", str(source), "--log", str(tmp_path / "k.jsonl"),
                     "--rule", "lock_joker_starts=no")
    assert code == 2 and "lock_joker_starts=no" in one_line_error(text)


def test_existing_outputs_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, log = tmp_path / "k.log", tmp_path / "k.jsonl"
    source.write_text(reference_kifu())
    log.write_text("mine\n")
    code, text = run(capsys, "import-kifu", str(source), "--log", str(log))
    assert code == 5 and "exists" in one_line_error(text)
    assert log.read_text() == "mine\n"
    log.unlink()
    assert run(capsys, "import-kifu", str(source), "--log", str(log))[0] == 0
    code, text = run(capsys, "replay", str(log), "--kifu", str(source))
    assert code == 5 and "exists" in one_line_error(text)


def test_a_cut_last_game_is_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = reference_kifu()
    cut = text[:text.index("%00001%play%") + 40]  # the server stopped in game 2's plays
    source = tmp_path / "cut.log"
    source.write_text(cut)
    code, out = run(capsys, "import-kifu", str(source), "--log", str(tmp_path / "c.jsonl"))
    assert code == 0 and "1 games" in out and "cut short" in out, out
    assert len(read_match_log(tmp_path / "c.jsonl").games) == 1


def test_reader_stream_names_lines() -> None:
    from daihinmin.records.errors import KifuError
    from daihinmin.records.kifu import KifuReader

    with pytest.raises(KifuError, match=r"^k:2: not a kifu line"):
        list(KifuReader(io.StringIO("%-----%A% 1\nhello\n"), "k"))
