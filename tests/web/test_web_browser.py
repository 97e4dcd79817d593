"""The browser game in real headless Chromium (Debian's chromium + chromedriver, Selenium).

One ``daihinmin web`` process (a real separate process on 127.0.0.1, port 0) and one browser
serve every test; a test that needs a second person opens a second browser.  Each page
records every websocket message it receives, so the tests check what reached the browser,
not only what it shows: no page is ever sent another seat's hand.

The table is played at two sizes, a laptop's 1280×800 and a phone's 390×844; screenshots go to
the folder named by ``DAIHINMIN_SCREENS``, else to ``screens/`` under pytest's temporary
folder (never into the repository).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import MISSING
from browser import new_browser as shared_browser
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from vectors import SUPPORT

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
if MISSING:  # never skipped: CI installs them (.ci/run)
    raise RuntimeError(f"the browser tests need {', '.join(MISSING)} "
                       "(apt-get install chromium chromium-driver)")

# Installed before any page script: keep every message the page's websockets receive.
RECORD_MESSAGES = """
window.__messages = [];
const NativeSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new NativeSocket(...args);
  ws.addEventListener("message", (ev) => window.__messages.push(JSON.parse(ev.data)));
  return ws;
};
window.WebSocket.prototype = NativeSocket.prototype;
window.WebSocket.OPEN = NativeSocket.OPEN;
"""


def new_browser() -> WebDriver:
    driver = shared_browser((1200, 1000))
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_MESSAGES})
    return driver


PUBLISH: dict[str, str] = {}  # the publish address (with its token) of each web app


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    logs = tmp_path_factory.mktemp("weblogs")
    errors = logs.parent / "web-stderr.txt"
    with errors.open("w") as stderr:
        proc = subprocess.Popen(
            # every table of this module comes from one address: more than the default 20
            # at once (the cap itself: tests/web/test_web_guard.py)
            [sys.executable, "-m", "daihinmin.tools", "web", "--port", "0", "--cpu-delay",
             "0", "--seed", "20", "--log-dir", str(logs), "--tables-per-client", "500"],
            stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert found, f"no address in {line!r}; stderr: {errors.read_text()}"
        publish = re.search(r"--publish '([^']+)'", proc.stdout.readline())
        assert publish, "no publish address printed"
        PUBLISH[found.group(1)] = publish.group(1)
        yield found.group(1), logs
    finally:
        proc.terminate()
        proc.wait(10)
    assert "Traceback" not in errors.read_text(), errors.read_text()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    driver = new_browser()
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = 90) -> Any:
    """Poll ``condition`` until it holds (the timeout is generous: a busy machine).  The page
    draws its seats and hand anew on every state message, so an element the condition found
    can be replaced before it is read: that poll is dropped and the next one finds the
    element again."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def click(driver: WebDriver, css: str, text: str | None = None) -> None:
    """Click the first element ``css`` finds (whose text is ``text``, if given), found again
    if the page replaced it meanwhile (a stale element is refused before any click)."""
    def once(d: WebDriver) -> bool:
        found = [e for e in d.find_elements(By.CSS_SELECTOR, css)
                 if text is None or e.text == text]
        if found:
            found[0].click()
        return bool(found)

    wait(driver, once)


def state(driver: WebDriver) -> dict[str, Any]:
    return driver.execute_script("return T.state") or {}


def messages(driver: WebDriver) -> list[dict[str, Any]]:
    return driver.execute_script("return window.__messages")


SCREENS: list[Path] = []  # the folder of this run's screenshots (set by the fixture)


@pytest.fixture(scope="module", autouse=True)
def screens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    named = os.environ.get("DAIHINMIN_SCREENS")
    folder = Path(named) if named else tmp_path_factory.mktemp("screens")
    folder.mkdir(parents=True, exist_ok=True)
    SCREENS[:] = [folder]
    return folder


def shot(driver: WebDriver, name: str) -> None:
    driver.save_screenshot(str(SCREENS[0] / f"{name}.png"))


@pytest.fixture
def sized(request: pytest.FixtureRequest, browser: WebDriver) -> Iterator[str]:
    """The shared browser's viewport at one of :data:`SIZES` (a phone as a touch screen)."""
    name = request.param
    width, height = SIZES[name]
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": name == "phone"})
    try:
        yield name
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def tap_card(driver: WebDriver, card: int) -> None:
    """Click a card of the hand where a person sees it: the cards overlap in a fan, so the
    point is one of the card's own visible points (its left strip), not its middle."""
    def once(d: WebDriver) -> bool:
        node = d.find_element(By.CSS_SELECTOR, f'#hand [data-card="{card}"]')
        dx, dy = d.execute_script(VISIBLE_POINT, node)
        ActionChains(d, duration=0).move_to_element_with_offset(node, dx, dy).click().perform()
        return True

    wait(driver, once)


# The offset from an element's centre to a point where the element itself is on top: the
# middle of the widest stretch of it that shows (a card's edge may move as it lifts on hover).
VISIBLE_POINT = """
const node = arguments[0];
node.scrollIntoView({block: "nearest"});
const r = node.getBoundingClientRect();
let best = null;
for (const fy of [0.5, 0.35, 0.65]) {
  const y = r.top + r.height * fy;
  let run = [];
  for (let x = r.left + 1; x < r.right; x += 2) {
    const hit = document.elementFromPoint(x, y);
    if (hit && (hit === node || node.contains(hit))) run.push(x);
    else if (run.length) break;
  }
  if (run.length && (!best || run.length > best.run.length)) best = {run, y};
}
if (!best) return [0, 0];
const x = best.run[Math.floor(best.run.length / 2)];
return [Math.round(x - (r.left + r.width / 2)), Math.round(best.y - (r.top + r.height / 2))];
"""


def new_table(driver: WebDriver, base: str, settings: dict[str, Any]) -> str:
    """Create a table through the menu's own API call and open it; returns its id."""
    driver.get(base + "/")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
    made = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "api('/api/tables/new', arguments[0]).then((m) => {"
        "  localStorage.setItem('daihinmin:token:' + m.table, m.token); done(m); },"
        "  (e) => done({error: String(e)}));",  # a refusal is an answer, not a hang
        settings)
    assert "error" not in made, f"the table was not made: {made['error']}"
    driver.get(base + made["url"])
    wait(driver, lambda d: state(d).get("table") == made["table"])
    return made["table"]


def prompt_or_over(driver: WebDriver) -> dict[str, Any]:
    return wait(driver, lambda d: (s := state(d)) and (s.get("prompt") or s.get("status")
                                                       in ("over", "failed")) and s)


def secret_cards(message: dict[str, Any]) -> list[Any]:
    """Card data left in a state message once its own hand, question, field and last play
    (public) are taken out: must be none."""
    rest = {k: v for k, v in message.items() if k not in ("hand", "prompt", "field", "last")}
    found: list[Any] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("cards", "hand", "hands", "id"):
                    found.append((k, v))
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(rest)
    return found


def check_only_own_hand(driver: WebDriver, logs: Path, table: str,
                        require: bool = True) -> None:
    """Every state the page received shows at most its own seat's hand."""
    log = [json.loads(line) for line in (logs / f"web-{table}.jsonl").read_text().splitlines()]
    games = {g["game"]: g for g in log if g["type"] == "game"}
    seen = 0
    for m in messages(driver):
        if m.get("type") != "state":
            continue
        assert secret_cards(m) == []
        if "hand" in m and m.get("game") in games:
            g, you = games[m["game"]], m["you"]
            own = set(g["dealt"][you].split()) | set(g["hands"][you].split())
            for t in g["transfers"]:
                if t["receiver"] == you:
                    own |= set(t["cards"].split())
            names = {card_name(c["id"]) for c in m["hand"]}
            assert names <= own, (names - own, you)
            seen += 1
    assert seen > 0 or not require


def card_name(c: int) -> str:
    return "JK" if c >= 60 else "SHDC"[c & 3] + "x3456789TJQKA2x"[c >> 2]


def verify_log(logs: Path, table: str) -> str:
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", "--verify",
                           str(logs / f"web-{table}.jsonl")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def answer_by_clicks(driver: WebDriver, s: dict[str, Any]) -> None:
    """Answer the open question with mouse clicks on the page's buttons."""
    prompt = s["prompt"]
    if prompt["kind"] == "play":
        move = prompt["moves"][0]  # the weakest play (the pass when nothing else)
        for c in move["cards"]:
            tap_card(driver, c)
        play = driver.find_element(By.ID, "pass" if move["pass"] else "play")
        if play.is_enabled():
            play.click()
        else:  # the joker can stand in several places: pick this one
            click(driver, "#joker-options button", "Play " + move["text"])
    else:
        wanted = prompt["count"] if prompt["kind"] == "exchange" else 0
        for c in s["hand"][:wanted]:
            tap_card(driver, c["id"])
        driver.find_element(By.ID, "give").click()
    wait(driver, lambda d: (state(d).get("prompt") or {}).get("id") != prompt["id"])


def in_view(driver: WebDriver, element_id: str) -> bool:
    """Is the element shown whole (top and bottom) inside the window, the page unscrolled?"""
    return driver.execute_script("""
        const r = document.getElementById(arguments[0]).getBoundingClientRect();
        return window.scrollY === 0 && r.height > 0 && r.top >= 0
            && r.bottom <= window.innerHeight && r.right <= window.innerWidth;""", element_id)


def check_side_panel(driver: WebDriver, size: str) -> None:
    """The scores and the turns without scrolling: beside the table on a laptop, one tab
    away on a phone (and the tab back shows the hand again)."""
    if size == "desktop":
        assert in_view(driver, "scores") and in_view(driver, "recent")
        assert not driver.find_element(By.CSS_SELECTOR, ".tabs").is_displayed()
        return
    assert not driver.find_element(By.ID, "scores").is_displayed()
    for tab, shown in (("scores", "scores"), ("turns", "recent")):
        click(driver, f'.tab[data-view="{tab}"]')
        wait(driver, lambda d, e=shown: d.find_element(By.ID, e).is_displayed())  # type: ignore[misc]
        assert in_view(driver, shown)
        assert not driver.find_element(By.ID, "hand").is_displayed()
        shot(driver, f"{size}-tab-{tab}")
    click(driver, '.tab[data-view="play"]')
    wait(driver, lambda d: d.find_element(By.ID, "hand").is_displayed())


@pytest.mark.parametrize("sized", list(SIZES), indirect=True)
def test_cpu_match_played_by_clicks(server: tuple[str, Path], browser: WebDriver,
                                    sized: str) -> None:
    """A whole web-preset match (3 rounds, place points) against beginner CPUs, by clicks,
    on a laptop's and a phone's screen; the page shows the per-round scores, the scores and
    turns are in view without scrolling, and the log verifies."""
    base, logs = server
    table = new_table(browser, base, {"mode": "cpu", "preset": "web", "players": 4, "games": 3,
                                      "level": "beginner", "name": "Ada"})
    exchanged = illegal_explained = midgame = False
    first = True
    while (s := prompt_or_over(browser)).get("status") == "playing":
        prompt = s["prompt"]
        if first:
            assert all(o.is_displayed() for o in browser.find_elements(
                By.CSS_SELECTOR, "#seats .seat"))
            assert len(browser.find_elements(By.CSS_SELECTOR, "#seats .seat")) == 3
            assert len(browser.find_elements(By.CSS_SELECTOR, "#seats .back")) >= 3
            assert browser.find_element(By.ID, "turn-banner").text.startswith("Your turn")
            shot(browser, f"{sized}-play-start")
            check_side_panel(browser, sized)
            first = False
        if prompt["kind"] == "exchange":
            exchanged = True
            shot(browser, f"{sized}-play-exchange")
        if prompt["kind"] == "play" and not illegal_explained:
            illegal = illegal_selection(s)
            if illegal is not None:
                for c in illegal:
                    tap_card(browser, c)
                text = wait(browser, lambda d: d.find_element(By.ID, "message").text)
                assert "not a legal move" in text or "cannot" in text or "must" in text, text
                assert not browser.find_element(By.ID, "play").is_enabled()
                chosen = browser.find_elements(By.CSS_SELECTOR, "#hand .chosen")
                assert len(chosen) == 2  # lifted, so a person sees what is selected
                shot(browser, f"{sized}-play-illegal")
                for c in illegal:
                    tap_card(browser, c)
                illegal_explained = True
        if prompt["kind"] == "play" and s.get("field") and not midgame:
            midgame = len(s.get("recent", [])) > 6
            if midgame:
                shot(browser, f"{sized}-play-midgame")
        answer_by_clicks(browser, s)
    assert s["status"] == "over"
    shot(browser, f"{sized}-play-over")
    if sized == "desktop":
        assert in_view(browser, "scores")
    rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
    assert len(rows) == 1 + 3 + 1  # header, three rounds, total
    assert sum(s["totals"]) == 3 * (3 + 2 + 1 + 0)
    assert "Match over" in browser.find_element(By.ID, "message").text
    assert illegal_explained
    # the person returns cards whenever game 1 or 2 made them daifugo or fugo
    assert exchanged or (s["scores"][0]["places"][0] > 2 and s["scores"][1]["places"][0] > 2)
    check_only_own_hand(browser, logs, table)
    assert "3 games" in verify_log(logs, table)
    games = [json.loads(line) for line in (logs / f"web-{table}.jsonl").read_text()
             .splitlines()][1:-1]
    assert [g.get("stand_in", []) for g in games] == [[], [], []]  # every turn was Ada's own


def illegal_selection(s: dict[str, Any]) -> list[int] | None:
    """Two cards of the hand that are no legal play together, if the hand has any."""
    legal = {frozenset(m["cards"]) for m in s["prompt"]["moves"]}
    hand = [c["id"] for c in s["hand"]]
    for i, a in enumerate(hand):
        for b in hand[i + 1:]:
            if frozenset((a, b)) not in legal:
                return [a, b]
    return None


def press_on(driver: WebDriver, selector: str, key: str) -> None:
    """Tab (forwards) until ``selector`` has the focus, then press ``key``; keyboard only."""
    target = driver.find_element(By.CSS_SELECTOR, selector)
    for _ in range(120):
        if driver.switch_to.active_element == target:
            ActionChains(driver).send_keys(key).perform()
            return
        ActionChains(driver).send_keys(Keys.TAB).perform()
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize("sized", list(SIZES), indirect=True)
def test_cpu_game_by_keyboard_only(server: tuple[str, Path], browser: WebDriver,
                                   sized: str) -> None:
    """One uecda game against CPUs with Tab, Space and Enter only, at both sizes."""
    base, logs = server
    table = new_table(browser, base, {"mode": "cpu", "preset": "uecda", "games": 1,
                                      "level": "beginner"})
    turns = 0
    while (s := prompt_or_over(browser)).get("status") == "playing":
        prompt = s["prompt"]
        assert prompt["kind"] == "play"  # one game: no exchange
        move = prompt["moves"][0]
        for c in move["cards"]:
            press_on(browser, f'#hand [data-card="{c}"]', Keys.SPACE)
        target = "#pass" if move["pass"] else "#play"
        if not move["pass"] and not browser.find_element(By.ID, "play").is_enabled():
            target = f'#joker-options [data-move="{move["index"]}"]'  # the joker's place
        press_on(browser, target, Keys.ENTER)
        wait(browser, lambda d, asked=prompt["id"]: (state(d).get("prompt") or {}).get("id")  # type: ignore[misc]
             != asked)
        turns += 1
    assert s["status"] == "over" and turns > 0
    assert len(browser.find_elements(By.CSS_SELECTOR, "#scores tr")) == 3
    verify_log(logs, table)


def test_hot_seat_curtain_hides_the_other_hands(server: tuple[str, Path],
                                                browser: WebDriver) -> None:
    base, _logs = server
    new_table(browser, base, {"mode": "hotseat", "preset": "web", "players": 3, "games": 3})
    asked: list[Any] = []
    for _ in range(4):
        s = wait(browser, lambda d: state(d).get("curtain") and state(d))
        assert browser.find_element(By.ID, "me").is_displayed() is False
        assert browser.find_elements(By.CSS_SELECTOR, "#hand [data-card]") == [] or \
            not browser.find_element(By.ID, "hand").is_displayed()
        assert "hand" not in s and "prompt" not in s
        assert s["curtain_for"] in browser.find_element(By.ID, "curtain-text").text
        if not asked:
            shot(browser, "hotseat-curtain")
        browser.find_element(By.ID, "curtain-button").click()
        s = wait(browser, lambda d: state(d).get("prompt") and state(d))
        assert s["seats"][s["you"]]["turn"]  # the hand shown is the one asked now
        asked.append(s["you"])
        answer_by_clicks(browser, s)
    assert len(set(asked)) >= 2  # the device went round, one person at a time
    for m in messages(browser):
        if m.get("type") == "state":
            assert secret_cards(m) == []
            assert "hand" not in m or (not m["curtain"] and m["you"] is not None)


def test_room_two_browsers_cpu_takes_over(server: tuple[str, Path],
                                          browser: WebDriver) -> None:
    """Host and friend in two browsers; the friend's browser closes and the CPU plays the
    seat at once; the friend comes back and gets the seat again.  Bad input on the way."""
    base, logs = server
    table = new_table(browser, base, {"mode": "room", "preset": "web", "players": 4,
                                      "games": 3, "level": "beginner", "name": "Host"})
    assert wait(browser, lambda d: d.find_element(By.ID, "start").is_displayed())
    friend: WebDriver | None  # None once it has left
    friend = new_browser()
    try:
        friend.get(f"{base}/t/{table}")
        wait(friend, lambda d: d.find_element(By.ID, "join").is_displayed())
        friend.find_element(By.ID, "join-name").clear()
        friend.find_element(By.ID, "join-name").send_keys("Bea")
        friend.find_element(By.ID, "join").click()
        wait(browser, lambda d: state(d)["seats"][1]["name"] == "Bea"
             and state(d)["seats"][1]["connected"])
        token = friend.execute_script(f"return localStorage.getItem('daihinmin:token:{table}')")
        # a second tab for the friend's seat is refused; the first one goes on
        friend.execute_script("window.open(arguments[0])", f"{base}/t/{table}")
        first = friend.current_window_handle
        friend.switch_to.window(next(h for h in friend.window_handles if h != first))
        wait(friend, lambda d: "another tab" in d.find_element(By.ID, "status-line").text)
        friend.close()
        friend.switch_to.window(first)
        # only the host starts
        friend.execute_script("send({type: 'start'})")
        wait(friend, lambda d: "only the host" in d.find_element(By.ID, "message").text)
        browser.find_element(By.ID, "start").click()
        wait(browser, lambda d: state(d).get("status") == "playing")
        shot(browser, "room-playing")
        # forged and replayed messages, a move out of turn
        bad = [("{not json", "not JSON"), ('{"type": "play", "prompt": 1, "move": 0}', ""),
               ('{"type": "teleport"}', "unknown message"),
               ('{"type": "exchange", "prompt": "x", "cards": [99]}', "")]
        for text, expected in bad:
            friend.execute_script("T.ws.send(arguments[0])", text)
            wait(friend, lambda d, e=expected: e in d.find_element(  # type: ignore[misc]
                By.ID, "message").text
                 and d.find_element(By.ID, "message").text.startswith("✗"))
        # the deal may ask the friend first: the friend answers until the host is asked
        while not (s := wait(browser, lambda d, f=friend: (  # type: ignore[misc]
                state(d) if state(d).get("prompt") or state(d).get("status") != "playing"
                else None) or (state(f).get("prompt") and {"friend": state(f)}))).get("seats"):
            answer_by_clicks(friend, s["friend"])
        if s.get("prompt"):
            stale = {"type": "play", "prompt": s["prompt"]["id"] - 1, "move": 0}
            browser.execute_script("send(arguments[0])", stale)
            wait(browser, lambda d: "earlier question" in d.find_element(By.ID, "message").text
                 or "not your turn" in d.find_element(By.ID, "message").text)
            answer_by_clicks(browser, s)
        # the friend leaves: the CPU plays the seat at once, the game goes on
        friend.quit()
        friend = None
        wait(browser, lambda d: state(d)["seats"][1]["stand_in"])
        # the seats are drawn anew on each of the CPU's plays: read the seat as found now
        wait(browser, lambda d: "CPU plays" in d.find_element(
            By.CSS_SELECTOR, '#seats [data-player="1"]').text)
        for _ in range(3):
            s = prompt_or_over(browser)
            if s.get("status") != "playing":
                break
            answer_by_clicks(browser, s)
        # ... and comes back through the seat's link: the seat is theirs again
        friend = new_browser()
        friend.get(f"{base}/t/{table}#seat={token}")
        wait(browser, lambda d: not state(d)["seats"][1]["stand_in"])
        assert state(friend)["you"] == 1
        check_only_own_hand(friend, logs, table, require=False)
        for m in messages(friend):
            if m.get("type") == "state":
                assert secret_cards(m) == []
                assert m.get("you") in (1, None)
    finally:
        if friend is not None:
            friend.quit()
    # a room that does not exist
    browser.get(f"{base}/t/nosuchroom")
    assert "No such table" in browser.find_element(By.TAG_NAME, "h1").text


SEVEN, TEN = 5, 8  # card number >> 2 of a 7 and of a 10 (see card_name)


def rank_of(card: int) -> int | None:
    return None if card >= 60 else card >> 2


def test_seven_pass_and_ten_discard_chosen_by_clicks(server: tuple[str, Path],
                                                     browser: WebDriver) -> None:
    """The app preset with 7-pass and 10-discard on: the person plays 7s and 10s when they
    can and answers each follow-up by clicking cards and the Give/Discard button; the cards
    leave the hand and the log (which verifies) records the person's own choices."""
    base, logs = server
    table = new_table(browser, base, {"mode": "cpu", "preset": "app", "players": 4,
                                      "games": 5, "level": "beginner", "name": "Cy",
                                      "rules": {"seven_pass": True, "ten_discard": True}})
    chosen: dict[str, list[int]] = {}
    last = 0  # the game of the last choice: played to its end, so that the log has it
    while (s := prompt_or_over(browser)).get("status") == "playing" and (
            len(chosen) < 2 or len(s["scores"]) < last):
        prompt = s["prompt"]
        if prompt["kind"] == "play":
            sevens_tens = [m for m in prompt["moves"] if not m["pass"] and any(
                rank_of(c) in (SEVEN, TEN) for c in m["cards"])]
            if sevens_tens:
                prompt = {**prompt, "moves": sevens_tens}
            answer_by_clicks(browser, {**s, "prompt": prompt})
            continue
        if prompt["kind"] != "choose":
            answer_by_clicks(browser, s)
            continue
        kind = prompt["choice"]
        assert kind in ("give", "discard") and prompt["count"] >= 1
        title = browser.find_element(By.ID, "hand-title").text
        assert ("7-pass" if kind == "give" else "10-discard") in title, title
        # the play that opened the choice is the last play already (it once showed the one before)
        assert (s.get("last") or {}).get("name") == "Cy", s.get("last")
        assert browser.find_element(By.ID, "last").text.startswith("Last play: Cy — ")
        card = next(c["id"] for c in s["hand"] if c["id"] < 60)
        tap_card(browser, card)
        give = browser.find_element(By.ID, "give")
        assert give.text == ("Give 1 card" if kind == "give" else "Discard 1 card")
        if kind not in chosen:
            shot(browser, f"play-{kind}")
        give.click()
        after = wait(browser, lambda d, asked=prompt["id"]: (  # type: ignore[misc]
            state(d).get("prompt") or {}).get("id") != asked and state(d))
        assert card not in [c["id"] for c in after.get("hand", [])]
        if kind not in chosen:
            chosen[kind], last = [card], s["game"]
    assert set(chosen) == {"give", "discard"}, chosen
    verify_log(logs, table)
    turns = [t for line in (logs / f"web-{table}.jsonl").read_text().splitlines()
             if (g := json.loads(line))["type"] == "game" for t in g["turns"]]
    mine = [c for t in turns if t["player"] == 0 for c in t.get("choices", [])]
    assert {c["kind"] for c in mine} >= {"give", "discard"}
    assert all(not c["substituted"] and "by" not in c for c in mine)  # the person's own
    for kind, (card,) in chosen.items():
        assert any(c["kind"] == kind and c["cards"] == card_name(card) for c in mine)


def test_bad_input_gets_a_clear_answer_and_the_game_goes_on(server: tuple[str, Path],
                                                            browser: WebDriver) -> None:
    """A spectator's move, a forged seat link, a socket for a table that does not exist, a
    replayed and a forged answer: each is answered in words; the player's game goes on."""
    base, _logs = server
    table = new_table(browser, base, {"mode": "cpu", "preset": "uecda", "games": 1,
                                      "level": "beginner", "name": "Di"})
    s = prompt_or_over(browser)
    other = new_browser()
    try:
        other.get(f"{base}/t/{table}")  # no seat: a spectator
        wait(other, lambda d: state(d).get("table") == table)
        other.execute_script("send({type: 'play', prompt: arguments[0], move: 0})",
                             s["prompt"]["id"])
        wait(other, lambda d: "you hold no seat" in d.find_element(By.ID, "page-message").text)
        assert all("hand" not in m and "prompt" not in m for m in messages(other)
                   if m.get("type") == "state")
        other.get("about:blank")  # (a new hash alone would not load the page again)
        other.get(f"{base}/t/{table}#seat=forged-token")  # a seat link that is not theirs
        wait(other, lambda d: "seat is not at this table" in
             d.find_element(By.ID, "status-line").text)
        other.find_element(By.LINK_TEXT, "Watch instead").click()
        wait(other, lambda d: state(d).get("table") == table and state(d)["you"] is None)
        refused = other.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const ws = new WebSocket(`ws://${location.host}/ws/nosuchroom`);
            ws.onmessage = (ev) => done(JSON.parse(ev.data));""")
        assert refused == {"type": "refused", "text":
                           "there is no such table (it may have ended with the server)"}
    finally:
        other.quit()
    # the player's own page: a replayed answer, a forged one, then the game goes on
    s = prompt_or_over(browser)
    if s.get("status") == "playing":
        answer_by_clicks(browser, s)
        browser.execute_script("send({type: 'play', prompt: arguments[0], move: 0})",
                               s["prompt"]["id"])  # the same answer again
        wait(browser, lambda d: "earlier question" in d.find_element(By.ID, "message").text
             or "not your turn" in d.find_element(By.ID, "message").text)
        s = prompt_or_over(browser)
    if s.get("status") == "playing" and s["prompt"]["kind"] == "play":
        browser.execute_script("send({type: 'play', prompt: arguments[0], move: 999})",
                               s["prompt"]["id"])
        wait(browser, lambda d: "no such move" in d.find_element(By.ID, "message").text)
        assert state(browser)["prompt"]["id"] == s["prompt"]["id"]  # still asked
    while (s := prompt_or_over(browser)).get("status") == "playing":
        answer_by_clicks(browser, s)
    assert s["status"] == "over" and len(s["scores"]) == 1
    browser.execute_script("send({type: 'play', prompt: arguments[0], move: 0})",
                           s["seats"][0]["player"] + 10**9)  # nothing is asked now
    wait(browser, lambda d: "not your turn" in d.find_element(By.ID, "message").text)


RAW_KEY = re.compile(r"^[a-z0-9_]+$")
# Each rule of the menu as the page shows it (the closed "More rules" too: textContent).
MENU_RULES = """
return [...document.querySelectorAll("#menu .rule")].map((rule) => ({
  label: rule.querySelector(".rule-name").textContent,
  key: rule.querySelector(".rule-key").textContent,
  explain: rule.querySelector(".rule-explain").textContent,
  options: [...rule.querySelectorAll("option")].map((o) => [o.textContent, o.value])}));
"""


@pytest.mark.parametrize("sized", list(SIZES), indirect=True)
def test_menu_names_every_rule_in_words(server: tuple[str, Path], browser: WebDriver,
                                        sized: str) -> None:
    """Every rule of every preset shows a name people use (never its key), one line of
    explanation and the key small; the groups have headings; the preset says what it sets."""
    base, _logs = server
    browser.get(base + "/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
    presets = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; api('/api/presets').then(done);")
    for option in browser.find_elements(By.CSS_SELECTOR, "#preset option"):
        assert not RAW_KEY.match(option.text), option.text
    seen: set[str] = set()
    for name, preset in presets.items():
        browser.execute_script("const p = document.getElementById('preset');"
                               "p.value = arguments[0]; p.dispatchEvent(new Event('change'));",
                               name)
        assert "Sets:" in browser.find_element(By.ID, "preset-about").text
        rules = browser.execute_script(MENU_RULES)
        assert len(rules) == len(preset["toggles"]) > 30
        keys = {t["key"] for t in preset["toggles"]}
        for rule in rules:
            label, key = rule["label"], rule["key"]
            assert key in keys
            assert label != key and "_" not in label and not RAW_KEY.match(label), label
            assert len(rule["explain"]) > 15, rule
            for words, value in rule["options"]:
                assert "_" not in words and words != value, words
        legends = browser.execute_script(
            "return [...document.querySelectorAll('#menu .rule-group legend')]"
            ".map((e) => e.textContent)")
        assert "Special cards" in legends and "Finishing" in legends
        seen.update(rule["label"] for rule in rules)
    for japanese in ("8切り", "都落ち", "イレブンバック", "スペ3返し", "縛り"):
        assert any(japanese in label for label in seen), japanese
    browser.execute_script("const p = document.getElementById('preset');"
                           "p.value = 'web'; p.dispatchEvent(new Event('change'));")
    shot(browser, f"{sized}-menu")
    browser.find_element(By.CSS_SELECTOR, "#menu details summary").click()
    shot(browser, f"{sized}-menu-more-rules")
    with urllib.request.urlopen(base + "/favicon.ico") as icon:  # no 404 in the server's log
        assert icon.status == 200 and icon.read().startswith(b"<svg")


def test_every_preset_opens_at_every_size_it_plays(server: tuple[str, Path],
                                                   browser: WebDriver) -> None:
    """The menu offers each preset's table sizes and rounds; a table of every size opens
    with that many seats, the rounds asked for and the preset's scoring."""
    base, _logs = server
    browser.get(base + "/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
    presets = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; api('/api/presets').then(done);")
    assert set(presets) == {"uecda", "original", "web", "app", "thirteenth_floor"}
    for name, preset in presets.items():
        browser.execute_script("const p = document.getElementById('preset');"
                               "p.value = arguments[0]; p.dispatchEvent(new Event('change'));",
                               name)
        offered = [int(str(o.get_attribute("value"))) for o in
                   browser.find_elements(By.CSS_SELECTOR, "#players option")]
        assert offered == preset["player_counts"] and set(offered) <= {3, 4, 5, 6}
        rounds = browser.find_element(By.ID, "games")
        if name == "web":
            assert [int(str(o.get_attribute("value"))) for o in rounds.find_elements(
                By.TAG_NAME, "option")] == [3, 5, 7]
    made = []
    for name, preset in presets.items():
        for n in preset["player_counts"]:
            games = (preset["rounds"] or [2])[-1]
            table = new_table(browser, base, {"mode": "cpu", "preset": name, "players": n,
                                              "games": games, "level": "beginner"})
            s = prompt_or_over(browser)
            assert len(s["seats"]) == s["players"] == n and s["games"] == games
            assert s["lower_is_better"] == (preset["scoring"] != "place")
            assert s["status"] == "playing" and s["rules"].split("+")[0] == name
            made.append(table)
    assert len(made) == sum(len(p["player_counts"]) for p in presets.values()) >= 16


def test_replay_html_steps_through_a_logged_match(tmp_path: Path, browser: WebDriver) -> None:
    log = tmp_path / "m.jsonl"
    subprocess.run([sys.executable, "-m", "daihinmin.tools", "match", "random", "random",
                    "random", "random", "random", "--games", "2", "--seed", "4", "--log",
                    str(log)], check=True, capture_output=True)
    page = tmp_path / "replay.html"
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", str(log),
                           "--html", str(page)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", str(log),
                            "--html", str(page)], capture_output=True, text=True)
    assert again.returncode == 5 and "exists" in again.stderr  # never clobbered
    assert "http" not in re.sub(r"https?://[^\"' ]*w3\.org[^\"' ]*", "", page.read_text())
    browser.get(page.as_uri())
    where = browser.find_element(By.ID, "replay-where")
    assert where.text.startswith("Game 1 · turn 0")
    rows = browser.find_elements(By.CSS_SELECTOR, ".hand-row")
    assert len(rows) == 5 and all(len(r.find_elements(By.CSS_SELECTOR, ".card")) >= 10
                                  for r in rows)
    first = json.loads(log.read_text().splitlines()[1])["turns"][0]
    browser.find_element(By.ID, "replay-next").click()
    assert where.text.startswith("Game 1 · turn 1")
    assert f"p{first['player']}" in where.text
    assert len(browser.find_elements(By.CSS_SELECTOR, ".centre .card")) == len(
        first["move"].split())  # the first play is on the field
    shot(browser, "replay-turn1")
    browser.find_element(By.ID, "replay-next-game").click()
    assert where.text.startswith("Game 2 · turn 0")
    browser.find_element(By.ID, "replay-prev").click()
    assert where.text.startswith("Game 1 · turn ")
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.scores tr")) == 2
    browser.find_element(By.ID, "replay-play").click()
    wait(browser, lambda d: d.find_element(By.ID, "replay-where").text
         .startswith("Game 2 · turn 1"), timeout=60)
    browser.find_element(By.ID, "replay-play").click()  # pause


def test_replay_page_opens_a_log(server: tuple[str, Path], browser: WebDriver,
                                 tmp_path: Path) -> None:
    base, logs = server
    log = next((f for f in logs.glob("web-*.jsonl") if '"type": "game"' in f.read_text()),
               None)
    if log is None:  # this test alone: make a log with a quick match
        log = tmp_path / "m.jsonl"
        subprocess.run([sys.executable, "-m", "daihinmin.tools", "match", "random", "random",
                        "random", "--rules", "web", "--rule", "players=3", "--games", "1",
                        "--log", str(log)], check=True, capture_output=True)
    browser.get(base + "/replay")
    browser.find_element(By.ID, "log-file").send_keys(str(log))
    wait(browser, lambda d: d.find_elements(By.ID, "replay-where"))
    assert "Game 1 · turn 0" in browser.find_element(By.ID, "replay-where").text
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "game"}\n')
    browser.get(base + "/replay")
    browser.find_element(By.ID, "log-file").send_keys(str(broken))
    wait(browser, lambda d: "✗" in d.find_element(By.ID, "replay-message").text)




def follow_live_table(browser: WebDriver, base: str, mode: str) -> None:
    """Open the first playing table of ``mode`` from /watch and wait for its third turn."""
    browser.get(base + "/watch")
    live = wait(browser, lambda d: [a for a in d.find_elements(
        By.PARTIAL_LINK_TEXT, mode) if "playing" in a.find_element(By.XPATH, "..").text],
        timeout=90)
    listed = live[0].find_element(By.XPATH, "..").text
    assert "table " in listed and "started " in listed  # tables that look alike are told apart
    live[0].click()
    wait(browser, lambda d: state(d).get("mode") == "watch")
    wait(browser, lambda d: len(state(d).get("recent", [])) >= 3)


def test_spectator_follows_a_live_match(server: tuple[str, Path], browser: WebDriver,
                                        tmp_path: Path) -> None:
    """``daihinmin match --publish`` shows its table in the web app as it plays: the
    spectator page gets turn after turn, the standings at the end, and no hand."""
    base, _logs = server
    env = {**os.environ, "PYTHONPATH": str(SUPPORT)}
    match = subprocess.Popen(
        [sys.executable, "-m", "daihinmin.tools", "match", *["web_slow_bot:SlowBot"] * 5,
         "--games", "1", "--seed", "8", "--log", str(tmp_path / "m.jsonl"), "--publish",
         PUBLISH[base]],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        follow_live_table(browser, base, "live match")
        shot(browser, "watch-live")
        s = wait(browser, lambda d: state(d).get("status") == "over" and state(d), timeout=120)
    finally:
        _out, err = match.communicate(timeout=60)
    assert match.returncode == 0, err
    received = [m for m in messages(browser) if m.get("type") == "state"]
    playing = {len(m["recent"]) + m.get("recent_from", 1) for m in received
               if m["status"] == "playing" and m.get("recent")}
    assert len(playing) >= 5  # turn after turn while the match ran
    assert len(s["scores"]) == 1 and sum(s["totals"]) == 5 + 4 + 3 + 2 + 1
    log = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert s["totals"] == log[-1]["totals"]
    for m in received:
        assert secret_cards(m) == [] and all("hand" not in seat for seat in m["seats"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#scores tr")) == 3
    assert "hands hidden" in browser.find_element(By.ID, "status-line").text


def test_tournament_report_html_draws_ratings_and_intervals(tmp_path: Path,
                                                            browser: WebDriver) -> None:
    page, summary = tmp_path / "report.html", tmp_path / "report.json"
    run = [sys.executable, "-m", "daihinmin.tools", "tournament", "--bot", "random",
           "--bot", "weakest", "--bot", "greedy", "--games", "30", "--in-process", "--jobs",
           "1", "--db", str(tmp_path / "t.sqlite"), "--json", "--report-json", str(summary),
           "--report-html", str(page)]
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([*run[:-1], str(page)], capture_output=True, text=True)
    assert again.returncode == 5 and "exists" in again.stderr
    report = json.loads(summary.read_text())
    browser.get(page.as_uri())
    shot(browser, "tournament-report")
    charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert len(charts) == 2
    for chart in charts:
        assert len(chart.find_elements(By.CSS_SELECTOR, "circle.estimate")) == 3
        bars = chart.find_elements(By.CSS_SELECTOR, "line.interval")
        assert len(bars) == 3 and all(float(str(b.get_attribute("x2"))) > float(
            str(b.get_attribute("x1"))) for b in bars)
    rows = browser.find_elements(By.CSS_SELECTOR, "table.standings tr")[1:]
    for row, p in zip(rows, report["participants"], strict=True):
        cells = row.find_elements(By.CSS_SELECTOR, "td, th")
        assert cells[1].text == p["name"] and cells[5].text == f"{p['elo']:.0f}"


def test_spectator_follows_a_live_tournament(server: tuple[str, Path], browser: WebDriver,
                                             tmp_path: Path) -> None:
    """``daihinmin tournament --publish`` shows every table slot live with the tournament's
    standings; the spectator follows a table turn by turn and the standings at the end are
    the tournament's own report; no hand reaches the page."""
    base, _logs = server
    env = {**os.environ, "PYTHONPATH": str(SUPPORT)}
    slow = (f"{sys.executable} -m daihinmin.tools.botproc web_slow_bot:SlowBot -q "
            "--host {host} --port {port}")
    run = subprocess.Popen(
        [sys.executable, "-m", "daihinmin.tools", "tournament", "--cmd", f"slow={slow}",
         "--cmd", f"quick={slow}", "--games", "2", "--games-per-match", "1",
         "--no-duplicate", "--jobs", "1", "--tables", "2", "--db", str(tmp_path / "t.sqlite"),
         "--json", "--publish", PUBLISH[base]],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        follow_live_table(browser, base, "live tournament")
        assert browser.find_element(By.ID, "tournament").is_displayed()
        shot(browser, "watch-tournament")
        s = wait(browser, lambda d: state(d).get("status") == "over" and state(d), timeout=120)
    finally:
        out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    report = json.loads(out)
    received = [m for m in messages(browser) if m.get("type") == "state"]
    playing = {len(m["recent"]) + m.get("recent_from", 1) for m in received
               if m["status"] == "playing" and m.get("recent")}
    assert len(playing) >= 5  # turn after turn while the table played
    for m in received:
        assert secret_cards(m) == [] and all("hand" not in seat for seat in m["seats"])
        assert m["source"] == "tournament" and m["match"]["table"] in ("1-1", "1-2")
    names = {seat["name"].split(" ", 1)[1] for seat in s["seats"]}
    assert names <= {"slow", "quick"}
    final = s["tournament"]
    assert final["done"] == final["total"] == 2 and final["matches_done"] == 2
    by_name = {p["name"]: p for p in report["participants"]}
    assert {r["name"] for r in final["rows"]} == set(by_name)
    for row in final["rows"]:  # the live standings agree with the tournament's report
        assert row["games"] == by_name[row["name"]]["games"]
        assert row["mean"] == pytest.approx(by_name[row["name"]]["mean_points"], abs=1e-3)
    progress = browser.find_element(By.ID, "tournament-progress")
    wait(browser, lambda d: "2 of 2 games" in progress.text)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#standings tr")) == 1 + 2
    shot(browser, "watch-tournament-over")
