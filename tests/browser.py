"""Debian's Chromium driven through Selenium and the system chromedriver, air-gapped: the
browser tests (tests/test_docs_offline.py, tests/dashboard/test_dashboard_browser.py) skip on a laptop
without Chromium but fail in CI, like the Postgres tests (see tests/conftest.py)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import IN_CI

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def require_chromium() -> None:
    if CHROMIUM and CHROMEDRIVER:
        return
    msg = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver)"
    if IN_CI:
        pytest.fail(f"{msg}; CI must run the browser test", pytrace=False)
    pytest.skip(msg)


def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1400,1800", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-default-apps",
        # The air gap: names other than 127.0.0.1 do not resolve, and whatever is not
        # loopback goes to a proxy that is a closed port (Chromium never proxies loopback).
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--proxy-server=http://127.0.0.1:9",
    ):
        opts.add_argument(arg)
    # DevTools network events, read back to prove the page asked no other host.
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))


def requests_sent(driver) -> list[str]:
    """URLs the page requested, less those its own Content-Security-Policy stopped in the
    browser (DevTools reports those too, but they never reach the network)."""
    urls, blocked = {}, set()
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls[msg["params"]["requestId"]] = msg["params"]["request"]["url"]
        elif msg["method"] == "Network.loadingFailed" and \
                msg["params"].get("blockedReason") == "csp":
            blocked.add(msg["params"]["requestId"])
    return [url for rid, url in urls.items() if rid not in blocked]


def assert_only_local(urls: list[str], base: str) -> None:
    foreign = [u for u in urls
               if not (u == base or u.startswith((base + "/", "data:", "blob:")))]
    assert not foreign, f"the page asked other hosts: {foreign}"
