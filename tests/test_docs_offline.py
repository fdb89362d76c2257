"""Swagger UI and ReDoc work with no network but the service's own: air-gapped clusters have
no CDN, and a docs page that fetches its JS from one is a white page there.

The browser test drives Debian's Chromium through Selenium and the system chromedriver
against a real `headroom serve`. It skips on a laptop without Chromium but fails in CI, like
the Postgres tests (see tests/conftest.py).
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.browser import assert_only_local, chromium, require_chromium, requests_sent
from tests.conftest import make_settings
from tests.live import LiveServer


def _asset_urls(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)\s*=\s*['"]([^'"]+)['"]""", html) + \
        re.findall(r"""(?:url|openapi_url|specUrl)\s*:\s*['"]([^'"]+)['"]""", html)


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_reference_only_this_service(sqlite_url, page):
    """Every script, stylesheet and icon the page names is a path on this service, and it
    is served: the cheap check that fails on FastAPI's CDN defaults without a browser."""
    client = TestClient(create_app(make_settings(sqlite_url), configure_logs=False))
    html = client.get(page).text
    urls = _asset_urls(html)
    assert any(u.endswith(".js") for u in urls), urls
    for url in urls:
        assert not urlsplit(url).netloc and url.startswith("/"), f"{page} loads {url}"
        assert client.get(url).status_code == 200, url


@pytest.mark.slow
def test_swagger_ui_renders_and_try_it_out_works_offline(tmp_path):
    require_chromium()
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    with LiveServer(f"sqlite:///{tmp_path / 'docs.db'}") as server:
        driver = chromium()
        try:
            wait = WebDriverWait(driver, 30)
            driver.get(server.url + "/docs")
            try:
                op = wait.until(ec.presence_of_element_located(
                    (By.ID, "operations-clusters-listClusters")))
            except TimeoutException:  # a blank page: say what it tried to load
                pytest.fail(f"/docs did not render; requests: {requests_sent(driver)}")
            assert len(driver.find_elements(By.CSS_SELECTOR, ".opblock")) >= 20

            # Authorize with an admin key, as a user would.
            driver.find_element(By.CSS_SELECTOR, ".auth-wrapper .btn.authorize").click()
            # The dialog lists every scheme (the API key, and /metrics' scrape token).
            wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, ".auth-container input")))
            [api_key] = [c for c in driver.find_elements(By.CSS_SELECTOR, ".auth-container")
                         if "apiKey" in c.text]
            api_key.find_element(By.CSS_SELECTOR, "input").send_keys(server.key)
            api_key.find_element(By.CSS_SELECTOR, ".btn.modal-btn.authorize").click()
            driver.find_element(By.CSS_SELECTOR, ".modal-ux .close-modal").click()

            # GET /v1/clusters: expand, Try it out, Execute, read the live response's status.
            op.find_element(By.CSS_SELECTOR, ".opblock-summary-control").click()
            wait.until(lambda _: op.find_element(By.CSS_SELECTOR, ".try-out__btn")).click()
            wait.until(lambda _: op.find_element(By.CSS_SELECTOR, ".btn.execute")).click()
            status = wait.until(lambda _: op.find_element(
                By.CSS_SELECTOR, ".live-responses-table .response .response-col_status"))
            assert status.text.strip() == "200"
            body = op.find_element(By.CSS_SELECTOR, ".live-responses-table .microlight").text
            assert json.loads(body) == {"items": [], "next_cursor": None}  # none declared yet
            driver.save_screenshot(str(tmp_path / "swagger-ui.png"))
            assert_only_local(requests_sent(driver), server.url)

            driver.get(server.url + "/redoc")
            wait.until(lambda d: d.find_elements(
                By.XPATH, "//h2[contains(., 'List clusters by name')]"))
            driver.save_screenshot(str(tmp_path / "redoc.png"))
            assert_only_local(requests_sent(driver), server.url)
        finally:
            driver.quit()
