"""Hostile kifus: ``import-kifu`` answers with its own errors, one line, in bounded memory.

Real kifus (the reference server's two games, and one written from a match of the bundled
bots) are mutated by hypothesis (a line replaced by hostile text, a character changed, a
line dropped or repeated, bytes cut) and imported.  Only :class:`KifuError` and
:class:`KifuRulesError` may come out, the command exits 0, 2 or 4 with at most one line on
stderr and no traceback, and whatever a mutated kifu imports into verifies.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tracemalloc
from pathlib import Path

import pytest
from daihinmin.driver.record import GameRecord
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.records.errors import KifuError, KifuRulesError
from daihinmin.records.inprocess_log import LocalMatchLog
from daihinmin.records.kifu import MAX_LINE_BYTES, KifuReader, text_lines
from daihinmin.records.kifu_log import KifuImport
from daihinmin.records.matchlog import parse_lines
from daihinmin.records.replay import verify_log
from daihinmin.rules.ruleset import UECDA
from daihinmin.tools.cli import main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vectors import transcript_text

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
KIFU_CHARS = "%-0123456789 SHDCJKLMNxTQA2EU_\n"
HOSTILE = ["%-----%GAME_NUMBER% 99999999999999999999\n", "%99999%mibun% 22222\n",
           "%00000%play% " + "0EE " * 3000 + "\n", "%-----%palyer_name% \x1b[2J a b c d\n",
           "%00000%palyer_cards% J3J3J3 S3 S4 S5 S6\n", "%00001%change_cards% 00S3EE\n",
           "%-----%RULE_SEKIGAE_NUM% -5\n", "\xff\xfe\n", "%%%\n", ""]


@pytest.fixture(scope="module")
def kifus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    text = transcript_text()
    reference = text[text.index("%-----%TIME_START%"):]
    folder = tmp_path_factory.mktemp("kifu")
    log = folder / "m.jsonl"
    bots = ["default", "greedy", "random", "weakest", "default"]
    with LocalMatchLog.open(log, UECDA, seed=3, games=3, names=bots) as writing:
        writing.finish(play_local_match(UECDA, 3, 3, [make_bot(b) for b in bots],
                                        on_game=writing.game))
    assert main(["replay", str(log), "--kifu", str(folder / "m.log")]) == 0
    return [reference, (folder / "m.log").read_text()]


def import_text(raw: bytes) -> None:
    """Import ``raw`` in memory; a kifu that imports must verify."""
    reader = KifuReader(text_lines(io.BytesIO(raw), "k"), "k")
    records = list(KifuImport(reader).records())
    log = parse_lines([json.dumps(r.to_json()) + "\n" for r in records])
    assert verify_log(log).games == len(log.games) == sum(
        isinstance(r, GameRecord) for r in records)


def every_reader(raw: bytes, folder: Path) -> None:
    with contextlib.suppress(KifuError, KifuRulesError):
        import_text(raw)
    source, target = folder / "k.log", folder / "k.jsonl"
    source.write_bytes(raw)
    target.unlink(missing_ok=True)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["import-kifu", str(source), "--log", str(target)])
    assert code in (0, 2, 4), err.getvalue()
    text = err.getvalue()
    assert "Traceback" not in text and "\x1b" not in text and text.count("\n") <= 1, text
    assert (code == 0) == target.exists()


@FUZZ
@given(data=st.data())
def test_mutated_kifus(kifus: list[str], tmp_path: Path, data: st.DataObject) -> None:
    lines = data.draw(st.sampled_from(kifus), label="kifu").splitlines(keepends=True)
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    how = data.draw(st.sampled_from(["replace", "char", "drop", "repeat"]), label="how")
    if how == "replace":
        lines[i] = data.draw(st.sampled_from(HOSTILE) | st.text(KIFU_CHARS, max_size=60),
                             label="text")
    elif how == "char":
        j = data.draw(st.integers(0, max(0, len(lines[i]) - 1)), label="at")
        ch = data.draw(st.sampled_from(KIFU_CHARS), label="char")
        lines[i] = lines[i][:j] + ch + lines[i][j + 1:]
    elif how == "drop":
        del lines[i]
    else:
        lines.insert(i, lines[i])
    raw = "".join(lines).encode("utf-8", "surrogatepass")
    if data.draw(st.booleans(), label="cut?"):
        raw = raw[:data.draw(st.integers(0, len(raw)), label="cut at")]
    every_reader(raw, tmp_path)


def test_long_lines_and_endless_files_in_bounded_memory(kifus: list[str], tmp_path: Path
                                                        ) -> None:
    tracemalloc.start()
    try:
        for raw in (b"%00000%play% " + b"0EE " * (MAX_LINE_BYTES // 4) + b"\n",
                    kifus[0].encode() + b"x" * (4 * MAX_LINE_BYTES)):
            with pytest.raises(KifuError, match="longer than"):
                import_text(raw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * MAX_LINE_BYTES
    if os.path.exists("/dev/zero"):
        assert main(["import-kifu", "/dev/zero", "--log", str(tmp_path / "z.jsonl")]) == 4
    assert main(["import-kifu", str(tmp_path / "none.log"), "--log",
                 str(tmp_path / "n.jsonl")]) == 4
    assert main(["import-kifu", str(tmp_path), "--log", str(tmp_path / "d.jsonl")]) == 4
