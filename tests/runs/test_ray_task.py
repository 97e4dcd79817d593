"""What a Ray task sends back, played here without Ray (:func:`play_task` is a plain
generator: Ray only carries its batches to the driver).

A driver can be killed between any two of the batches; whatever it handled by then must be
true.  So a match's ``done`` comes after the file of its log: a driver that counted the match
has its whole log, and one killed before that plays the match again on ``--resume``.
"""

from __future__ import annotations

from pathlib import Path

from daihinmin.records.matchlog import read_match_log
from daihinmin.runs.ray_run import Attempt, RayJob, RayRun, play_task
from daihinmin.runs.spec import MatchSpec, Participant, TableSettings


def spec(match_id: int = 3, games: int = 2) -> MatchSpec:
    bots = ("random", "greedy", "random", "greedy", "random")
    return MatchSpec(match_id, "uecda", (), seed=5, games=games,
                     lineup=tuple(Participant(f"p{i}", bot=b) for i, b in enumerate(bots)))


def test_a_match_is_done_only_after_its_log_was_sent(tmp_path: Path) -> None:
    settings = TableSettings(transport="in-process", log_dir=str(tmp_path / "unused"))
    batches = list(play_task(RayJob(), settings, spec(), None, 0))
    sent = [m for batch in batches for m in batch]
    kinds = [m[0] for m in sent]
    assert kinds.count("file") == 1 and kinds.count("done") == 1
    assert kinds.index("started") < kinds.index("log") < kinds.index("file") < \
        kinds.index("done") < kinds.index("exit")
    assert not any("done" in [m[0] for m in batch] and "file" in [m[0] for m in batch]
                   for batch in batches)  # each its own batch: a kill may fall in between
    assert [m[2] for m in sent if m[0] == "game"] == [1, 2]
    assert not (tmp_path / "unused").exists()  # the node wrote to its private folder

    # the driver handles them in order: when it hears the match is done, the log it named
    # is whole on its disk
    logs = tmp_path / "logs"
    logs.mkdir()
    driver = object.__new__(RayRun)  # its handling of a task's messages (no cluster)
    driver.setup = TableSettings(transport="in-process", log_dir=str(logs))
    driver.job = RayJob()
    attempt = Attempt(spec(), 1, 0)
    named: list[str] = []
    for msg in sent:
        if msg[0] == "done":
            [path] = named
            assert Path(path).name == "match-00003.jsonl"
            played = read_match_log(Path(path))
            assert played.end is not None and len(played.games) == 2
        out = driver._driver_side(attempt, msg)
        if out is not None and out[0] == "log":
            named.append(out[2])
    assert named
