"""Hostile pages in real headless Chromium.

A page served from a second loopback origin (another port) tries what a site visited in the
same browser could: a cross-site ``POST`` that makes a room, a websocket to a table and one
to ``/ws/publish``.  None reaches the app.  The app's own page, on its own origin, still
makes tables and opens its socket.  A replay page of a match where a player named itself
``<!--<script>`` shows the game, the name as text.
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import new_browser
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from webapp import WebProcess, web_process

ATTACK = """<!doctype html><meta charset="utf-8"><title>a page of another site</title>
<script>
window.results = {};
const base = "%(base)s", ws = "%(ws)s";
fetch(base + "/api/tables/new", {method: "POST", mode: "no-cors",
                                 body: JSON.stringify({mode: "room"})})
  .then(() => { results.post = "sent"; }, () => { results.post = "failed"; });
function tryOpen(key, url, first) {
  const s = new WebSocket(url);
  s.onopen = () => { results[key + "_open"] = true; if (first) s.send(first); };
  s.onmessage = (ev) => { results[key + "_message"] = String(ev.data).slice(0, 200); };
  s.onclose = () => { results[key + "_closed"] = true; };
}
tryOpen("table", ws + "/ws/%(table)s", null);
tryOpen("publish", ws + "/ws/publish",
        JSON.stringify({type: "hello", players: 3, games: 1}));
</script>"""



@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    driver = new_browser()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebProcess]:
    with web_process(tmp_path_factory.mktemp("hostile")) as app:
        yield app


def tables(app: WebProcess) -> list[dict[str, Any]]:
    with urllib.request.urlopen(app.base + "/api/tables", timeout=60) as page:
        return list(json.loads(page.read())["tables"])


@pytest.fixture
def other_site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A plain HTTP server of ``tmp_path`` on another loopback port: another origin."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_of_another_origin_reaches_nothing(web: WebProcess, browser: WebDriver,
                                                  other_site: tuple[str, Path]) -> None:
    site, folder = other_site
    browser.get(web.base + "/")  # the app's own page: makes a table as before
    made = browser.execute_async_script(
        "const done = arguments[0]; fetch('/api/tables/new', {method: 'POST', headers: "
        "{'Content-Type': 'application/json'}, body: JSON.stringify({mode: 'room'})})"
        ".then(r => r.json()).then(done, e => done(String(e)));")
    assert isinstance(made, dict) and "table" in made, made
    before = {t["id"] for t in tables(web)}
    (folder / "attack.html").write_text(ATTACK % {"base": web.base, "ws": web.ws,
                                                  "table": made["table"]})
    browser.get(site + "/attack.html")
    deadline = time.monotonic() + 60
    results: dict[str, Any] = {}
    while not {"post", "table_closed", "publish_closed"} <= results.keys():
        assert time.monotonic() < deadline, results
        time.sleep(0.1)
        results = browser.execute_script("return window.results")
    assert not any(key.endswith(("_open", "_message")) for key in results), results
    assert {t["id"] for t in tables(web)} == before  # no room made, nothing published
    browser.get(f"{web.base}/t/{made['table']}")  # and the app's own page still connects
    deadline = time.monotonic() + 60
    while "(open)" not in browser.find_element(By.TAG_NAME, "body").text:
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_no_player_name_breaks_a_replay_page(tmp_path: Path, browser: WebDriver) -> None:
    log = tmp_path / "m.jsonl"
    subprocess.run([sys.executable, "-m", "daihinmin.tools", "match", "random", "random",
                    "random", "--rules", "web", "--rule", "players=3", "--games", "1",
                    "--seed", "2", "--no-fsync", "--log", str(log)],
                   check=True, capture_output=True, timeout=120)
    lines = log.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    evil = "<!--<script>"
    header["players"][1]["name"] = evil
    header["players"][2]["name"] = "</script><b>x"
    log.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    page = tmp_path / "replay.html"
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", str(log),
                           "--html", str(page)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    browser.get(page.as_uri())
    where = browser.find_element(By.ID, "replay-where")
    assert where.text.startswith("Game 1 · turn 0")
    text = browser.find_element(By.TAG_NAME, "body").text
    assert evil in text and "</script><b>x" in text
    assert not browser.find_elements(By.CSS_SELECTOR, "#replay-view b")
