"""The league's pages in real headless Chromium, against a real running league.

``daihinmin league`` runs as its own process (bundled bots, a submission folder whose
version is an HTML payload, a house bot whose name is a script, a submission that crashes)
and serves its pages on 127.0.0.1; the browser reads the leaderboard as games finish (no
reload), opens an entrant's page, and a match's replay.  Screenshots go to pytest's tmp
folder (``league-*.png``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import new_browser
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

PY = shlex.quote(sys.executable)
HOSTILE_NAME = "<script>window.__pwned=1</script>"
HOSTILE_VERSION = '<img src=x onerror="window.__pwned=2">'



def wait(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = 90) -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def submission(root: Path, name: str, version: str, command: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "daihinmin-bot.toml").write_text(
        f'name = "{name}"\nversion = {json.dumps(version)}\nauthor = "test"\n'
        f"command = {json.dumps(command)}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    home = tmp_path_factory.mktemp("league")
    subs = home / "subs"
    subs.mkdir()
    submission(subs, "mallory", HOSTILE_VERSION,
               f"{PY} -m daihinmin.tools.botproc default -q --host {{host}} --port {{port}}")
    submission(subs, "crashy", "0.1", f"{PY} -c 'import sys; sys.exit(7)' {{port}}")
    (home / "league.toml").write_text(
        'name = "Spring league"\nsubmissions = "subs"\n'
        f'house = ["default", "random", "weakest", {json.dumps(HOSTILE_NAME + "=random")}]\n'
        "games_per_match = 2\ntables = 1\ncrash_limit = 1\nscan_seconds = 0.5\n"
        "move_time = 3.0\nprofile_time = 30.0\nweb_port = 0\ncheck_bot = false\n", encoding="utf-8")
    out = (home / "out.txt").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "league",
                             str(home / "league.toml")], stdout=out, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        found = None
        while found is None and time.monotonic() < deadline and proc.poll() is None:
            found = re.search(r"(http://127\.0\.0\.1:\d+)/league \(host view.*key=([\w-]+)\)",
                              (home / "out.txt").read_text())
            time.sleep(0.1)
        assert found, (home / "out.txt").read_text()
        yield found.group(1), found.group(2), home
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # a clean stop: the league says so and exits
            code = proc.wait(60)
            assert code == 130, (home / "out.txt").read_text()
        text = (home / "out.txt").read_text()
        assert "Traceback" not in text, text


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    driver = new_browser((1280, 1000))
    try:
        yield driver
    finally:
        driver.quit()


def summary(driver: WebDriver) -> str:
    return str(driver.find_element(By.ID, "league-summary").text)


def games_shown(driver: WebDriver) -> int:
    found = re.match(r"(\d+) games", summary(driver))
    return int(found.group(1)) if found else -1


def test_leaderboard_renders_and_updates_live(league: tuple[str, str, Path],
                                              browser: WebDriver, tmp_path: Path) -> None:
    base, _, _ = league
    browser.get(base + "/league")
    wait(browser, lambda d: games_shown(d) > 0)
    browser.execute_script("window.__sameDocument = true")
    first = games_shown(browser)
    wait(browser, lambda d: games_shown(d) > first)  # games finished: shown without reload
    assert browser.execute_script("return window.__sameDocument") is True
    # the board is drawn anew every 2 s: its cells are read within one wait, which tries again
    # when a redraw replaced a cell between finding and reading it
    ranks = wait(browser, lambda d: (cells := [c.text.strip("≈ ") for c in d.find_elements(
        By.CSS_SELECTOR, "#board-body tr td.rank")]) and len(cells) >= 6 and cells)
    ranked = [r for r in ranks if r not in ("–", "")]
    assert ranked, "some entrant is rated"
    browser.save_screenshot(str(tmp_path / "league-board.png"))
    header = wait(browser, lambda d: [th.text for th in d.find_elements(By.CSS_SELECTOR,
                                                                         "#board th")])
    assert header[:3] == ["#", "ENTRANT", "RATING (95 % INTERVAL)"]
    browser.set_window_size(390, 900)
    try:
        time.sleep(0.5)
        browser.save_screenshot(str(tmp_path / "league-board-phone.png"))
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, f"the board is {width} px wide at phone width"
    finally:
        browser.set_window_size(1280, 1000)


def test_hostile_names_are_shown_as_text(league: tuple[str, str, Path],
                                         browser: WebDriver) -> None:
    base, _, _ = league
    browser.get(base + "/league")
    wait(browser, lambda d: HOSTILE_VERSION in d.find_element(By.ID, "board-body").text)
    board = browser.find_element(By.ID, "board-body")
    assert HOSTILE_NAME in board.text
    assert not board.find_elements(By.TAG_NAME, "img")
    assert not board.find_elements(By.TAG_NAME, "script")
    assert browser.execute_script("return window.__pwned === undefined") is True


def test_a_match_link_opens_its_replay_and_errors_show_to_the_host(
        league: tuple[str, str, Path], browser: WebDriver, tmp_path: Path) -> None:
    base, key, _ = league
    browser.get(base + "/league")
    link = wait(browser, lambda d: next((a for a in d.find_elements(By.CSS_SELECTOR,
                                                                   "a.entrant-link")
                                         if a.text == "mallory"), None))
    link.click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "a.replay-link"))
    assert browser.find_element(By.ID, "e-name").text == "mallory"
    assert browser.find_element(By.ID, "e-version").text == HOSTILE_VERSION
    browser.save_screenshot(str(tmp_path / "league-entrant.png"))
    replay = browser.find_element(By.CSS_SELECTOR, "a.replay-link")
    match = replay.get_attribute("data-match")
    replay.click()
    wait(browser, lambda d: d.current_url.endswith(f"/league/m/{match}"))
    wait(browser, lambda d: d.find_elements(By.ID, "replay-next"))
    browser.find_element(By.ID, "replay-next").click()
    where = wait(browser, lambda d: d.find_elements(By.ID, "replay-where"))[0].text
    assert where, "the replay shows where it is"
    browser.save_screenshot(str(tmp_path / "league-replay.png"))

    # the crashing submission's error output: hidden from visitors, shown to the host
    def crashy_page(d: WebDriver) -> bool:
        return bool(d.find_element(By.ID, "e-status").text)

    crashy = wait(browser, lambda d: _entrant_id(base, "crashy"))
    browser.get(f"{base}/league/e/{crashy}")
    wait(browser, crashy_page)
    assert browser.find_element(By.ID, "e-status").text.lower() == "suspended"
    assert browser.find_element(By.ID, "e-errors-hidden").is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, "#e-errors details")
    browser.get(f"{base}/league/e/{crashy}?key={key}")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#e-errors details"))
    assert "key=" not in browser.current_url  # the key is kept by the tab, not the address
    browser.find_element(By.CSS_SELECTOR, "#e-errors summary").click()
    assert "exited with code 7" in browser.find_element(By.CSS_SELECTOR, "#e-errors pre").text
    browser.save_screenshot(str(tmp_path / "league-entrant-host.png"))


def _entrant_id(base: str, name: str) -> int | None:
    import urllib.request

    with urllib.request.urlopen(base + "/api/league/standings") as res:
        data = json.load(res)
    return next((r["id"] for r in data["entrants"] if r["name"] == name
                 and r["status"] == "suspended"), None)
