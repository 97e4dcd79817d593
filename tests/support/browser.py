"""Headless Chromium for the browser tests: the system's chromium and chromedriver, with
timeouts generous enough for a busy machine."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
MISSING = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]


def new_browser(window_size: tuple[int, int] | None = None) -> WebDriver:
    """A headless Chromium; ``window_size`` (width, height), else Chromium's own."""
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    if window_size is not None:
        options.add_argument(f"--window-size={window_size[0]},{window_size[1]}")
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(120)  # a page's API call, on a busy machine
    driver.set_page_load_timeout(120)
    return driver
