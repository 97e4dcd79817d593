"""The user documentation: the README as a front door, docs/ as a site that builds.

* ``mkdocs build --strict`` succeeds: no broken link or anchor, no page outside the nav;
* every relative link of README.md and docs/ resolves as a forge renders it (GitHub's
  heading anchors, which MkDocs' build does not check for the README);
* README.md is under 10 KB and links every guide of the nav;
* README.md and docs/ hold no development history (session or round numbers, issue numbers,
  commit hashes, before/after lab notes);
* the ``>>>`` examples in the docs run;
* scripts/benchmarks.py writes the blocks docs/BENCHMARKS.md holds.
"""

from __future__ import annotations

import doctest
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(DOCS.rglob("*.md"))


def user_docs() -> list[Path]:
    return [README, *PAGES]


# --- the site ----------------------------------------------------------------------------

def test_the_docs_site_builds_in_strict_mode(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--config-file", str(ROOT / "mkdocs.yml"),
                           "--site-dir", str(tmp_path / "site")],
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").exists()


def nav_pages(section: str) -> list[str]:
    """The pages under ``- SECTION:`` of mkdocs.yml's nav (one ``- Title: FILE`` a line)."""
    lines = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"  - {section}:")
    pages = []
    for line in lines[start + 1:]:
        m = re.fullmatch(r"      - [^:]+: (\S+\.md)", line)
        if m is None:
            break
        pages.append(m[1])
    return pages


def test_the_nav_has_guides_and_reference() -> None:
    guides, reference = nav_pages("Guides"), nav_pages("Reference")
    assert len(guides) >= 6 and len(reference) >= 8
    for page in guides + reference:
        assert (DOCS / page).is_file(), page


# --- links as a forge renders them -------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def github_anchor(text: str) -> str:
    """The id GitHub gives a heading: its text, lower case, punctuation dropped, each space a
    hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = text.replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = HEADING.match(line) if not in_code else None
        if m is None:
            continue
        slug = github_anchor(m[2])
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


@pytest.mark.parametrize("page", user_docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            assert target.startswith(("http://127.0.0.1", "https://")), target
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with that anchor")
        if page.parent == DOCS and path and not file.is_relative_to(DOCS):
            broken.append(f"{target}: outside docs/, which the site does not hold")
    assert not broken, broken


# --- the README --------------------------------------------------------------------------

def test_the_readme_is_a_short_front_door() -> None:
    size = len(README.read_bytes())
    assert size < 10 * 1024, f"README.md is {size} bytes; move the details into docs/"


def test_the_readme_links_every_guide() -> None:
    readme_links = {t.partition("#")[0] for t in links(README)}
    missing = [g for g in nav_pages("Guides") if f"docs/{g}" not in readme_links]
    assert not missing, f"README.md does not link these guides: {missing}"


def test_the_readme_test_command_is_the_last_line_of_ci() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    commands = [line for line in README.read_text(encoding="utf-8").splitlines()
                if line.startswith("python3 -m venv .venv && ") and "pytest" in line]
    assert [c.removeprefix("python3 -m venv .venv && ") for c in commands] == [ci]


# --- no development history --------------------------------------------------------------

HISTORY = {
    # A tournament has rounds ("round 1", "the last round"): only a round of the work counts.
    "a development session or round": re.compile(
        r"\b(?:sessions?|iterations?|sprints?|milestones?)\s+\d+\b"
        r"|\b(?:development|dev|work|review|fix|fixing)\s+rounds?\b"
        r"|\brounds?\s+\d+\s+of\s+(?:the\s+)?(?:work|development|review|fixes)\b"
        r"|\b(?:this|last|next|previous|earlier) (?:session|sprint)\b", re.IGNORECASE),
    "an issue or pull request number": re.compile(
        r"\b(?:issues?|PRs?|pull requests?|tickets?|bugs?)\s*#?\d+\b"
        r"|(?:\(|\b(?:in|see|fixes|fixed|closes|closed) )#\d+\b",  # not "#0", a player
        re.IGNORECASE),
    "a commit hash": re.compile(
        r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w/-])"),
    "a before/after lab note": re.compile(
        r"\bbefore\s*(?:→|->|/)\s*after\b|\bold\s*/\s*new\b|\bnew\s*/\s*old\b"
        r"|\bbase\s*→\s*new\b|\b(?:was|were)\s+[^;\n]{1,40}?,\s+(?:is\s+|are\s+)?now\b"
        r"|\bno longer\b|\bused to be\b|\bas before\b|\buntil then\b|\bfor now\b"
        r"|\b(?:measured|written) before\b",
        re.IGNORECASE),
}


def history_in(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in HISTORY.items():
            for m in pattern.finditer(line):
                found.append(f"line {number}: {what}: {m[0]!r}")
    return found


@pytest.mark.parametrize("page", user_docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_development_history(page: Path) -> None:
    found = history_in(page.read_text(encoding="utf-8"))
    assert not found, (f"{page.relative_to(ROOT)} tells history (it belongs in commit "
                       f"messages): {found}")


@pytest.mark.parametrize("text", [
    "measured in session 13 at load 3", "round 3 of the work", "since this session",
    "in development round 4", "the second review round",
    "(issue 21)", "see issue #21", "fixed in #143", "(#12)", "against a495d4c",
    "98e4c32 and 4bf21fa",
    "before → after: 7.3 → 6.0 ms", "before/after pairs", "new / old: 19.7 / 21.5",
    "it was 8.7 ms, now 6.2", "no longer needed", "its own loop for now",
    "these figures were measured before the devkit's build",
])
def test_the_history_check_finds_history(text: str) -> None:
    assert history_in(text)


@pytest.mark.parametrize("text", [
    "the recorded session of the reference server", "whole rounds of 30 games",
    "the CHOICE round trips with the mover only", "dealt one at a time round the seats",
    "rounds 3, 5 or 7", "bad 20140 hex", "round 1 deals the active entrants",
    "the last round is cut short", "go on to the next round", "`[5][14]` flags",
    "#seat=TOKEN", "0x1b, 1e999",
    "escaped (`\\x1b`)", "a 2013 build", "#0 CRASHED, fallback from game 1", "1 #1 default",
    "points 5/4/3/2/1", "cafe", "deadbeef", "`ffffff`",
    "before the exchange; after it", "sha256(\"daihinmin:<seed>:table<k>\")",
])
def test_the_history_check_leaves_plain_text_alone(text: str) -> None:
    assert not history_in(text)


# --- examples and figures ----------------------------------------------------------------

@pytest.mark.parametrize("page", [p for p in user_docs() if ">>> " in p.read_text("utf-8")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_in_the_docs_run(page: Path) -> None:
    # a fence line ends an example's expected output, as a blank line does
    text = re.sub(r"^```.*$", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    test = doctest.DocTestParser().get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test)
    assert result.failed == 0 and result.attempted > 0


def benchmarks(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "benchmarks.py"), *args],
                          capture_output=True, text=True, timeout=240, check=False)


def test_the_benchmarks_page_holds_a_measured_block_per_section() -> None:
    listed = benchmarks("--list")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert len(names) >= 8
    page = (DOCS / "BENCHMARKS.md").read_text(encoding="utf-8")
    for name in names:
        block = re.search(rf"<!-- bench:{name} -->\n(.*?)<!-- /bench:{name} -->", page,
                          re.DOTALL)
        assert block is not None, name
        body = block[1]
        assert "```sh\n" in body and "\n| " in body and "Measured 20" in body, name
        assert "load average" in body, name


def test_the_benchmarks_script_replaces_only_its_section(tmp_path: Path) -> None:
    page = tmp_path / "BENCHMARKS.md"
    shutil.copy(DOCS / "BENCHMARKS.md", page)
    before = page.read_text(encoding="utf-8")
    done = benchmarks("--only", "engine", "--scale", "0.02", "--out", str(page))
    assert done.returncode == 0, done.stderr
    after = page.read_text(encoding="utf-8")
    block = re.compile(r"<!-- bench:engine -->.*?<!-- /bench:engine -->", re.DOTALL)
    assert block.sub("", before) == block.sub("", after)  # the rest of the page as it was
    engine = block.search(after)
    assert engine is not None
    assert "daihinmin bench engine --rules thirteenth_floor --games 5 --seed 1 --json" in engine[0]
    assert engine[0].count("\n| `") == 5  # one row per preset
