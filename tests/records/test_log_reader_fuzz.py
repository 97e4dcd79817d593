"""Hostile match logs: every reader answers with the project's own errors, in bounded memory.

A real 3-game log is mutated by hypothesis (a value anywhere replaced by any JSON value, a
key dropped, a line replaced by hostile text, bytes cut) and handed to every reader: the
log reader, ``replay`` (summary, ``--game``, ``--verify``) and the ``--resume`` path.  Only
:class:`MatchLogError`, :class:`LogMismatchError` and :class:`ServerConfigError` may come
out, and the CLI exits 0, 1, 2 or 4, never with a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from daihinmin.records.errors import MatchLogError
from daihinmin.records.matchlog import MAX_LINE_BYTES, read_match_log
from daihinmin.records.replay import LogMismatchError, verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.server.errors import ResumeLogError, ServerConfigError
from daihinmin.server.resume import config_for_resume, load_resume
from daihinmin.tools.cli import main
from daihinmin.tools.cmd_match import resume_lineup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from probe import probe_match

DOCUMENTED = (MatchLogError, LogMismatchError, ServerConfigError)
FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

HOSTILE_LINES = [
    "1e999\n", '{"type": "header", "schema": 1e999}\n', "NaN\n", "[" * 50_000 + "\n",
    '{"type": "game", "game": ' + "9" * 5000 + "}\n", '"\\u001b[2J"\n', "{}\n", "[]\n",
    '{"type": "end"}\n', '{"type": "resume", "after_game": -1, "players": []}\n',
    "\xff\xfe garbage\n", "",
]


@pytest.fixture(scope="module")
def log_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("fuzz") / "match.jsonl"
    probe_match(ServerConfig(games=3, seed=12, port=0, log_path=path, fault_limit=0),
                first_seed=3, fault_rate=0.2)
    return path.read_text().splitlines(keepends=True)


# Values that once broke a reader: a lone surrogate, a list where a number goes, an integer
# past 64 bits, lineup entries that are no bundled bot.
ISSUE_VALUES: list[Any] = ["\ud800", [2, []], 2**63, {"bot": -7}, True, "../../etc/passwd", "",
                           {"cmd": "touch pwned"}, {"bot": "os:system"}, 1e308]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.sampled_from(ISSUE_VALUES)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=4),
    max_leaves=12)


def mutate(obj: Any, data: st.DataObject) -> Any:
    """``obj`` with one value somewhere inside replaced (or one key dropped)."""
    if isinstance(obj, dict) and obj and data.draw(st.booleans(), label="go deeper"):
        key = data.draw(st.sampled_from(sorted(obj)), label="key")
        if data.draw(st.integers(0, 5), label="drop?") == 0:
            del obj[key]
        else:
            obj[key] = mutate(obj[key], data)
        return obj
    if isinstance(obj, list) and obj and data.draw(st.booleans(), label="go deeper"):
        i = data.draw(st.integers(0, len(obj) - 1), label="index")
        obj[i] = mutate(obj[i], data)
        return obj
    return data.draw(json_values, label="new value")


def every_reader(path: Path) -> None:
    """Run every reader of ``path``; only the documented errors may escape."""
    out = io.StringIO()
    for read in (lambda: verify_log(read_match_log(path)), lambda: load_resume(path),
                 lambda: config_for_resume(path, ServerConfig(port=0)),
                 lambda: resume_lineup(path, load_resume(path).header, [], [], 5)):
        with contextlib.suppress(*DOCUMENTED):
            read()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        for argv in (["replay", str(path)], ["replay", str(path), "--verify"],
                     ["replay", str(path), "--game", "2"]):
            assert main(argv) in (0, 1, 2, 4)
    assert "\x1b" not in out.getvalue()  # names and details never reach a terminal raw


@FUZZ
@given(data=st.data())
def test_any_value_anywhere(log_lines: list[str], tmp_path: Path, data: st.DataObject) -> None:
    records = [json.loads(line) for line in log_lines]
    i = data.draw(st.integers(0, len(records) - 1), label="record")
    records[i] = mutate(records[i], data)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    every_reader(path)


@FUZZ
@given(data=st.data())
def test_hostile_lines_and_cut_bytes(log_lines: list[str], tmp_path: Path,
                                     data: st.DataObject) -> None:
    lines = list(log_lines)
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    lines[i] = data.draw(st.sampled_from(HOSTILE_LINES) | st.text(max_size=40), label="text")
    raw = "".join(lines).encode("utf-8", "surrogatepass")
    cut = data.draw(st.integers(0, len(raw)), label="cut at")
    path = tmp_path / "h.jsonl"
    path.write_bytes(raw[:cut] if data.draw(st.booleans(), label="cut?") else raw)
    every_reader(path)


@pytest.mark.parametrize("line", [*HOSTILE_LINES, "x" * (MAX_LINE_BYTES + 10) + "\n",
                                  '{"type": "game", "turns": [' + "{}, " * 200_000 + "{}]}\n"])
def test_memory_stays_bounded(log_lines: list[str], tmp_path: Path, line: str) -> None:
    """Every reader over a hostile line stays within tens of megabytes (a line of tiny JSON
    objects takes ~40 times its size once parsed; longer lines are refused unparsed)."""
    path = tmp_path / "b.jsonl"
    path.write_text(log_lines[0] + log_lines[1] + line + "".join(log_lines[2:]))
    tracemalloc.start()
    try:
        every_reader(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * MAX_LINE_BYTES


def test_escape_sequences_in_names_are_shown_escaped(log_lines: list[str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    header = json.loads(log_lines[0])
    header["players"][1]["name"] = "evil\x1b]0;owned\x07\x1b[2J"
    path = tmp_path / "n.jsonl"
    path.write_text(json.dumps(header) + "\n" + "".join(log_lines[1:]))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b]0;owned" in out


def test_dev_zero_as_a_log_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    tracemalloc.start()
    try:
        for read in (lambda: read_match_log(Path("/dev/zero")),
                     lambda: load_resume(Path("/dev/zero"))):
            with pytest.raises((MatchLogError, ResumeLogError), match="longer than"):
                read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_LINE_BYTES
    assert main(["serve", "--port", "0", "--resume", "/dev/zero"]) == 4
    assert main(["replay", "/dev/zero"]) == 4


def test_missing_and_unreadable_logs_exit_4(tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "nothing.jsonl")]) == 4
    assert main(["replay", str(tmp_path)]) == 4  # a directory
    assert main(["match", "--resume", str(tmp_path / "nothing.jsonl")]) == 4


def test_replay_into_a_closed_pipe_ends_quietly(log_lines: list[str], tmp_path: Path) -> None:
    """``daihinmin replay LOG | head -3``: the reader goes away before the output is done."""
    path = tmp_path / "p.jsonl"
    path.write_text("".join(log_lines))
    proc = subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "replay", str(path),
                             "--game", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before it writes a line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def set_name(header: dict[str, Any], name: Any) -> None:
    header["players"][0]["name"] = name


HEADER_ATTACKS: list[tuple[str, Any]] = [
    ("lone surrogate in a name", lambda h: set_name(h, "\ud800")),
    ("exchange_counts [2, []]", lambda h: h["rules"].__setitem__("exchange_counts", [2, []])),
    ("policy 2**63", lambda h: h.__setitem__("policy", 2**63)),
    ("policy value a list", lambda h: h["policy"].__setitem__("move_timeout", [])),
    *[(f"lineup entry {json.dumps(entry)}",
       lambda h, e=entry: h["lineup"].__setitem__(0, e))
      for entry in ({"bot": -7}, True, "../../etc/passwd", "", {"bot": ""}, {"bot": 1, "cmd": 2})],
    ("lineup bot not bundled", lambda h: h["lineup"].__setitem__(0, {"bot": "../../etc/passwd"})),
]
ONLY_RESUME = {"lineup bot not bundled"}  # a log may name any bot; seating it is refused


@pytest.fixture(scope="module")
def lineup_log(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A stopped 3-of-6-game ``match`` log (its header has a lineup)."""
    path = tmp_path_factory.mktemp("lineup") / "m.jsonl"
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "match", *["random"] * 5,
                           "--games", "3", "--seed", "4", "--no-fsync", "--log", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["games"] = 6  # three games left to play: --resume would seat the lineup
    return [json.dumps(header) + "\n", *lines[1:-1]]


@pytest.mark.parametrize("attack", HEADER_ATTACKS, ids=[name for name, _ in HEADER_ATTACKS])
def test_each_reader_answers_a_hostile_header_with_one_line_and_exit_4(
        lineup_log: list[str], tmp_path: Path, attack: tuple[str, Any]) -> None:
    """``replay``, ``replay --verify``, ``replay --html`` and ``match --resume`` (real
    processes) refuse the header with one line and exit 4; nothing is played or written."""
    header = json.loads(lineup_log[0])
    attack[1](header)
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(header) + "\n" + "".join(lineup_log[1:]))
    before = path.read_bytes()
    for argv in (["replay", str(path)], ["replay", "--verify", str(path)],
                 ["replay", "--html", str(tmp_path / "a.html"), str(path)]):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
        if attack[0] in ONLY_RESUME:
            assert code == 0, err.getvalue()
            continue
        assert code == 4 and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "match", "--resume",
                           str(path), "--no-fsync"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 4, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert path.read_bytes() == before
