"""The dashboard in a real browser: Debian's Chromium through Selenium against a real
`headroom serve`, air-gapped (tests/browser.py), like the /docs test.

Clusters of every family are driven through the HTTP API; each page must show the numbers
the API itself reports for them, update when new events are posted (waits, never sleeps),
ask no host but the service, and never show another owner's clusters. A screenshot per page
goes to test-artifacts/dashboard/ (gitignored; docs/dashboard/ holds copies for the docs).
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.browser import assert_only_local, chromium, require_chromium, requests_sent
from tests.live import ROOT, LiveServer

ARTIFACTS = ROOT / "test-artifacts" / "dashboard"
WAIT = 60  # seconds: generous, the machine is shared

pytestmark = pytest.mark.slow

DRA = {"name": "dra-east", "dimensions": ["cpu"],
       "server_pools": [{"name": "m", "count": 6, "capacity": {"cpu": 8}}],
       "job_types": [{"name": "small", "demand": {"cpu": 2}, "reward": 1},
                     {"name": "large", "demand": {"cpu": 6}, "reward": 4}],
       "policy": {"kind": "dra"}}
RMS = {"name": "batch", "dimensions": ["cpu"],
       "server_pools": [{"name": "m", "count": 2, "capacity": {"cpu": 8}}],
       "job_types": [{"name": "small", "demand": {"cpu": 2}},
                     {"name": "large", "demand": {"cpu": 6}}],
       "policy": {"kind": "rms", "clock": "client", "replace_dummies": True}}
MOMENT = {"name": "paas", "capacity_cores": 2000, "sla": 0.001,
          "policy": {"kind": "second_moment", "overflow_sd": 1}}
STREAM = {"name": "web-tier", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}]}


def _ok(r: httpx.Response) -> dict:
    assert r.status_code in (200, 201, 202), r.text
    return r.json()


def _key(server: LiveServer, owner: str, scope: str) -> str:
    from app.config import Settings
    from app.service.auth import create_key
    from app.service.context import ServiceContext

    ctx = ServiceContext.from_settings(Settings(database_url=server.env["HEADROOM_DATABASE_URL"]))
    try:
        return create_key(ctx, owner, [scope])["key"]
    finally:
        ctx.close()


def _drive(api: httpx.Client) -> dict[str, str]:
    """Clusters of every family with some history; returns their ids."""
    ids = {}
    ids["dra"] = _ok(api.post("/v1/clusters", json=DRA))["id"]
    for i in range(14):  # more than fits: some rejections
        _ok(api.post(f"/v1/clusters/{ids['dra']}/arrivals", json={
            "event_id": f"a{i}", "job_id": f"j{i}", "job_type": "large" if i % 3 else "small"}))
    _ok(api.post(f"/v1/clusters/{ids['dra']}/departures", json={"event_id": "d1",
                                                               "job_id": "j1"}))
    ids["ff"] = _ok(api.post("/v1/clusters", json={**DRA, "name": "ff-west",
                                                  "policy": {"kind": "first_fit"}}))["id"]
    _ok(api.post(f"/v1/clusters/{ids['ff']}/arrivals", json={
        "event_id": "a0", "job_id": "j0", "job_type": "small"}))
    ids["shared"] = _ok(api.post("/v1/clusters", json={
        **DRA, "name": "shared", "policy": {"kind": "first_fit"}, "tenants": [
            {"name": "ml", "cohort": "lab", "nominal": {"cpu": 24}},
            {"name": "web", "cohort": "lab", "nominal": {"cpu": 24}}]}))["id"]
    for i in range(5):  # web borrows 6 cpu of ml's quota; ml's second job takes them back
        _ok(api.post(f"/v1/clusters/{ids['shared']}/arrivals", json={
            "event_id": f"w{i}", "job_id": f"w{i}", "job_type": "large", "tenant": "web"}))
    for i in range(2):
        _ok(api.post(f"/v1/clusters/{ids['shared']}/arrivals", json={
            "event_id": f"m{i}", "job_id": f"m{i}", "job_type": "large", "tenant": "ml"}))
    ids["rms"] = _ok(api.post("/v1/clusters", json=RMS))["id"]
    for i in range(5):
        _ok(api.post(f"/v1/clusters/{ids['rms']}/arrivals", json={
            "event_id": f"a{i}", "job_id": f"q{i}", "job_type": "large", "at": 0.1 * i}))
    _ok(api.post(f"/v1/clusters/{ids['rms']}/tick", json={"until": 1.0}))
    ids["queue-tenants"] = _ok(api.post("/v1/clusters", json={
        **RMS, "name": "shared-queue", "policy": {"kind": "first_fit_queue", "clock": "client"},
        "tenants": [{"name": "ml", "cohort": "lab", "nominal": {"cpu": 12}},
                    {"name": "web", "cohort": "lab", "nominal": {"cpu": 4}}]}))["id"]
    for i in range(4):  # web borrows ml's unused quota (16 cpu in all): two wait for quota
        _ok(api.post(f"/v1/clusters/{ids['queue-tenants']}/arrivals", json={
            "event_id": f"w{i}", "job_id": f"w{i}", "job_type": "large", "tenant": "web",
            "at": i}))
    ids["moment"] = _ok(api.post("/v1/clusters", json=MOMENT))["id"]
    for i in range(4):
        _ok(api.post(f"/v1/clusters/{ids['moment']}/deployments", json={
            "event_id": f"d{i}", "deployment_id": f"app{i}", "cores": 40 * (i + 1), "at": i}))
    ids["stream"] = _ok(api.post("/v1/reservations", json=STREAM))["id"]
    for p, demand in enumerate([40, 44, 41, 47, 43, 45]):
        _ok(api.post(f"/v1/reservations/{ids['stream']}/observations", json={
            "event_id": f"p{p}", "period": p, "demand": {"cpu": demand}}))
    return ids


class Page:
    """The driver, with waits that read the page as a user would."""

    def __init__(self, driver, base: str):
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        self.d, self.base = driver, base
        # The page redraws itself when the log moves: an element read mid-redraw is stale,
        # and the wait reads it again from the new page.
        self.wait = WebDriverWait(driver, WAIT,
                                  ignored_exceptions=(StaleElementReferenceException,))

    def open(self, hash_: str) -> None:
        self.d.get(f"{self.base}/dashboard{hash_}")

    def go(self, hash_: str, testid: str) -> None:
        self.d.execute_script("location.hash = arguments[0]", hash_)
        self.el(testid)

    def el(self, testid: str):
        from selenium.webdriver.common.by import By

        return self.wait.until(lambda d: d.find_element(
            By.CSS_SELECTOR, f"[data-testid='{testid}']"))

    def _read(self, fn):
        """fn() on whatever the page shows now, again if a redraw replaced it meanwhile."""
        box = []
        self.wait.until(lambda _: box.append(fn()) or True)
        return box[-1]

    def text(self, testid: str) -> str:
        return self._read(lambda: self.el(testid).text)

    def until_text(self, testid: str, expected: str) -> None:
        """Wait until the element shows ``expected`` (the page redraws on its own)."""
        try:
            self.wait.until(lambda _: self.el(testid).text == expected)
        except Exception:
            raise AssertionError(f"{testid} shows {self.text(testid)!r}, not {expected!r}")

    def rows(self, testid: str) -> list[list[str]]:
        from selenium.webdriver.common.by import By

        return self._read(lambda: [
            [c.text for c in tr.find_elements(By.TAG_NAME, "td")]
            for tr in self.el(testid).find_elements(By.CSS_SELECTOR, "tbody tr")])

    def fill(self, testid: str, text: str) -> None:
        """Type ``text`` into a field, as a user would (again if a redraw replaced it)."""
        def typed(_):
            field = self.el(testid)
            field.clear()
            field.send_keys(text)
            return field.get_attribute("value") == text
        self.wait.until(typed)

    def choose(self, testid: str, value: str) -> None:
        from selenium.webdriver.support.ui import Select

        self._read(lambda: Select(self.el(testid)).select_by_value(value))

    def click(self, testid: str) -> None:
        self._read(lambda: self.el(testid).click())

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.d.save_screenshot(str(ARTIFACTS / f"{name}.png"))

    def enter_key(self, key: str) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec

        field = self.wait.until(ec.visibility_of_element_located((By.ID, "key-input")))
        field.send_keys(key)
        self.d.find_element(By.ID, "key-submit").click()


def _fmt(x: float, digits: int = 3) -> str:
    """How the page prints a number (dom.js fmt): integers with separators, else at most
    ``digits`` decimals (the test's numbers stay clear of fmt's exponent range)."""
    if float(x).is_integer():
        return f"{int(x):,}"
    assert 1e-3 <= abs(x) < 1e6, x
    return f"{x:,.{digits}f}".rstrip("0").rstrip(".")


def _waiting(api: httpx.Client, cid: str, first: int = 8) -> list[dict]:
    """The first waiting jobs of a queued cluster by job id, as GET .../jobs/{id} answers
    them (with their forecasts): those the Queues page shows."""
    items = _ok(api.get(f"/v1/clusters/{cid}/jobs", params={"limit": 1000}))["items"]
    return [_ok(api.get(f"/v1/clusters/{cid}/jobs/{j['job_id']}"))
            for j in items if j["status"] == "queued"][:first]


def _forecast_rows(jobs: list[dict], now: float) -> list[list[str]]:
    """The Queues page's expected-start rows for these jobs: "median (80%: low–high)" (the
    top "beyond" the horizon when absent) and the median's distance from now, or the reason."""
    rows = []
    for j in jobs:
        f = j["forecast"]
        if "median" in f:
            high = _fmt(f["high"]) if "high" in f else f"beyond {_fmt(f['horizon'])}"
            start = f"{_fmt(f['median'])} ({_fmt(100 * f['level'])}%: {_fmt(f['low'])}–{high})"
            d = f["median"] - now
            ahead = f"in {_fmt(d)}" if d > 0 else f"{_fmt(-d)} ago" if d < 0 else "now"
        else:
            start, ahead = f["reason"], "—"
        rows.append([j["job_id"], j["job_type"], str(j["position"]), _fmt(j["queued_at"]),
                     start, ahead])
    return rows


def _sign_in(page: Page, server: LiveServer, owner: str, scope: str = "read") -> None:
    """The overview, freshly loaded, with a new key of `owner` and `scope` (forgetting any key
    an earlier test left in the tab)."""
    page.open("#/overview")
    page.d.refresh()  # the same URL again would only move the hash
    if page.d.execute_script("return sessionStorage.length"):
        page.el("status")
        page.d.find_element("id", "forget-key").click()
    page.el("needs-key")
    page.enter_key(_key(server, owner, scope))


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    require_chromium()
    db = tmp_path_factory.mktemp("dash") / "dash.db"
    with LiveServer(f"sqlite:///{db}") as server, server.client() as api:
        ids = _drive(api)
        other = _key(server, "acme", "admin")
        _ok(api.post("/v1/clusters", json={**DRA, "name": "acme-secret"},
                     headers={"Authorization": f"Bearer {other}"}))
        driver = chromium()
        try:
            yield server, api, ids, Page(driver, server.url)
        finally:
            driver.quit()


def test_no_key_asks_for_one_and_a_bad_key_is_refused(live):
    server, _api, _ids, page = live
    page.open("#/overview")
    assert "needs an API key" in page.text("needs-key")
    page.shot("key-prompt")
    page.enter_key("hr_not-a-key")
    page.wait.until(lambda _: "401" in page.text("key-error"))
    assert page.d.execute_script("return sessionStorage.length") == 0
    assert_only_local(requests_sent(page.d), server.url)


def test_pages_show_the_apis_numbers_and_follow_new_events(live):
    from selenium.webdriver.common.by import By

    server, api, ids, page = live
    read_key = _key(server, "default", "read")
    page.open("#/overview")
    page.enter_key(read_key)

    # Overview: every cluster and stream of the owner, none of another owner's.
    page.el("cluster-dra-east")
    names = [r[0] for r in page.rows("clusters")]
    assert sorted(names) == ["batch", "dra-east", "ff-west", "paas", "shared", "shared-queue"]
    assert "acme-secret" not in page.d.page_source
    assert [r[0] for r in page.rows("streams")] == ["web-tier"]
    log = _ok(api.get(f"/v1/clusters/{ids['dra']}/events", params={"limit": 100}))["items"]
    placed = sum(e["decision"] == "placed" for e in log)
    rejected = sum(e["decision"] == "rejected" for e in log)
    assert rejected > 0
    assert f"{100 * placed / (placed + rejected):.1f}% placed (last {placed + rejected} " \
        "arrivals)" in page.text("cluster-dra-east")
    # Lock waits: the one worker took this cluster's lock once per event posted above.
    assert f"({len(log)} tx, pid " in page.text("cluster-dra-east")
    moment = _ok(api.get(f"/v1/clusters/{ids['moment']}/state"))
    assert ("SLA met" if moment["meets_sla"] else "SLA missed") in \
        page.text("cluster-paas")
    page.shot("overview")

    # Placement: GPA target vs actual per configuration, free slots, the server map.
    page.go(f"#/placement?c={ids['dra']}", "configurations")
    state = _ok(api.get(f"/v1/clusters/{ids['dra']}/state"))
    shown = {r[2]: r[3:7] for r in page.rows("configurations")}
    assert shown == {str(c["rank"]): [str(c["gpa_target_servers"]), str(c["servers"]),
                                      str(c["accept_group"]), str(c["reject_group"])]
                     for c in state["configurations"]}
    for t, n in state["free_slots_in_accept_group"].items():
        assert page.text(f"free-{t}").split()[1] == str(n)
    assert page.text("kpi-jobs") == str(state["jobs"])
    servers = _ok(api.get(f"/v1/clusters/{ids['dra']}/servers"))["items"]
    fills = page._read(lambda: {
        e.get_attribute("data-server"): float(e.get_attribute("data-fill"))
        for e in page.el("server-map").find_elements(By.CSS_SELECTOR, ".server")})
    assert fills == pytest.approx({s["server_id"]: s["fill"] for s in servers}, abs=1e-4)
    page.shot("placement")
    # Live: a departure posted now shows without a reload.
    _ok(api.post(f"/v1/clusters/{ids['dra']}/departures", json={"event_id": "d2",
                                                               "job_id": "j2"}))
    page.until_text("kpi-jobs", str(state["jobs"] - 1))

    # Tenants: who holds the cluster, against its quota, and who was preempted.
    page.go(f"#/placement?c={ids['shared']}", "tenants")
    tenancy = _ok(api.get(f"/v1/clusters/{ids['shared']}/state"))["tenancy"]
    shown = {r[0]: r for r in page.rows("tenants")}
    for t in tenancy["tenants"]:
        row = shown[t["name"]]
        assert row[2] == f"cpu {_fmt(t['usage']['cpu'])}"
        assert row[4] == f"cpu {_fmt(t['borrowed']['cpu'])}"
        assert row[6:9] == [str(t["jobs"]), str(t["preempted"]), str(t["refused"])]
    assert any(t["preempted"] for t in tenancy["tenants"])
    page.shot("placement-tenants")

    # Queues: per-type queue, running, weights, dummies, the clock.
    page.go(f"#/queues?c={ids['rms']}", "types")
    rms = _ok(api.get(f"/v1/clusters/{ids['rms']}/state"))
    rows = {r[0]: r[1:] for r in page.rows("types")}
    assert rows["large"][:2] == [str(rms["queues"]["large"]), str(rms["running"]["large"])]
    assert rows["large"][3] == str(rms["dummies"]["large"])
    assert page.text("kpi-now") == _fmt(rms["now"])
    for i in range(5, 8):  # more arrivals: the queue grows on the page
        _ok(api.post(f"/v1/clusters/{ids['rms']}/arrivals", json={
            "event_id": f"a{i}", "job_id": f"q{i}", "job_type": "large", "at": 1.0 + 0.01 * i}))
    rms = _ok(api.get(f"/v1/clusters/{ids['rms']}/state"))
    page.wait.until(lambda _: {r[0]: r[1] for r in page.rows("types")}["large"] ==
                    str(rms["queues"]["large"]))
    # Queue length over time, rebuilt from the log's answers and anchored on /state: the
    # whole log is in the tail here, so it must start from empty queues; one step per change.
    rms_log = _ok(api.get(f"/v1/clusters/{ids['rms']}/events", params={"limit": 100}))["items"]
    queued = sum(e["decision"] == "queued" for e in rms_log)
    starts = sum(len(e["response"].get("started", [])) for e in rms_log)
    assert queued - starts == rms["queues"]["large"] > 0
    points = page._read(lambda: json.loads(page.el("chart-queues").find_element(
        By.CSS_SELECTOR, "path[data-series='large']").get_attribute("data-points")))
    assert points[0][1] == 0 and points[-1][1] == rms["queues"]["large"]
    assert len(points) == 1 + queued + starts
    assert [p[0] for p in points] == sorted(p[0] for p in points)  # in time order
    # Expected starts of the waiting jobs: with no finished job there is nothing to draw
    # lifetimes from, and each says so.
    waiting = _waiting(api, ids["rms"])
    assert len(waiting) == rms["queues"]["large"] == 6
    page.wait.until(lambda _: page.rows("forecasts") == [
        [j["job_id"], "large", str(j["position"]), _fmt(j["queued_at"]),
         "no finished job yet to draw lifetimes from", "—"] for j in waiting])
    assert page.text("forecasts").count("no finished job yet") == 6
    # A job ends: lifetimes to draw from, and a forecast for each waiting job, the API's.
    running = next(j["job_id"] for j in _ok(api.get(f"/v1/clusters/{ids['rms']}/jobs"))["items"]
                   if j["status"] == "running")
    _ok(api.post(f"/v1/clusters/{ids['rms']}/departures", json={
        "event_id": "d-forecast", "job_id": running, "at": 1.5}))
    rms = _ok(api.get(f"/v1/clusters/{ids['rms']}/state"))
    waiting = _waiting(api, ids["rms"])
    assert all("median" in j["forecast"] for j in waiting)
    page.wait.until(lambda _: page.rows("forecasts") == _forecast_rows(waiting, rms["now"]))
    page.shot("queues")

    # A queued cluster's tenants: who holds it, and who waits for quota.
    page.go(f"#/queues?c={ids['queue-tenants']}", "tenants")
    tenancy = _ok(api.get(f"/v1/clusters/{ids['queue-tenants']}/state"))["tenancy"]
    shown = {r[0]: r for r in page.rows("tenants")}
    for t in tenancy["tenants"]:
        row = shown[t["name"]]
        assert row[2] == f"cpu {_fmt(t['usage']['cpu'])}"
        assert row[4] == f"cpu {_fmt(t['borrowed']['cpu'])}"
        assert row[6:8] == [str(t["jobs"]), str(t["waiting"])]
    assert [t["waiting"] for t in tenancy["tenants"]] == [0, 2]

    # Moment clusters: threshold, overflow bound per horizon, SLA.
    page.go(f"#/moments?c={ids['moment']}", "chart-overflow")
    assert page.text("kpi-threshold") == _fmt(moment["threshold"], 4)
    # A learning cluster of 2,000 cores: nothing learnt yet, its ladder calibrated to λ × 2.
    growth = moment["growth_calibration"]
    assert (growth["learnt_lambda_factor"], growth["calibrated_lambda_factors"][-1]) == (1.0, 2.0)
    assert page.text("kpi-growth") == "λ × 1; calibrated to λ × 2"
    assert "ok" in page.el("kpi-growth").get_attribute("class").split()
    # No deployment is expected to need half of it: the share shown is /state's, and calm.
    assert moment["outgrowing"]["count"] == 0
    assert page.text("kpi-outgrowing") == f"{100 * moment['outgrowing']['largest_expected_share']:.1f}%"
    assert "ok" in page.el("kpi-outgrowing").get_attribute("class").split()
    # The cluster's expected share, and its overflow line's (overflow_sd 1): calm below 1.
    out = moment["outgrowing"]
    assert out["expected_cluster_share"] <= out["overflow_line_share"] < 1.0
    assert page.text("kpi-cluster-share") == (
        f"{100 * out['expected_cluster_share']:.1f}%; {100 * out['overflow_line_share']:.1f}% at 1 sd above")
    assert "ok" in page.el("kpi-cluster-share").get_attribute("class").split()
    assert page.text("kpi-deployments") == \
        f"{moment['deployments']} ({moment['admitted']} / {moment['rejected']})"
    _ok(api.post(f"/v1/clusters/{ids['moment']}/deployments", json={
        "event_id": "d9", "deployment_id": "late", "cores": 8, "at": 10}))
    after = _ok(api.get(f"/v1/clusters/{ids['moment']}/state"))
    page.until_text("kpi-deployments",
                    f"{after['deployments']} ({after['admitted']} / {after['rejected']})")
    page.shot("moments")

    # Reservation streams: violations vs ε, cost vs the hindsight oracle.
    page.go(f"#/reservations?r={ids['stream']}", "resources")
    oracle = _ok(api.get(f"/v1/reservations/{ids['stream']}/hindsight"))["resources"][0]
    assert page._read(lambda: page.el("resource-cpu").find_element(
        By.CSS_SELECTOR, "[data-testid='ratio']").text) == f"{_fmt(oracle['cost_ratio'])}×"
    _ok(api.post(f"/v1/reservations/{ids['stream']}/observations", json={
        "event_id": "p6", "period": 6, "demand": {"cpu": 90}}))
    page.until_text("kpi-periods", "7")
    page.shot("reservations")

    # Decision log: filter the rejections, one click shows the numbers behind one.
    page.go(f"#/log?c={ids['dra']}&decision=rejected", "log")
    page.wait.until(lambda _: all(r[4] == "rejected" for r in page.rows("log")))
    assert len(page.rows("log")) == rejected
    first = page.rows("log")[0]
    page._read(lambda: page.el(f"event-{first[0]}").click())
    page.el("details")
    logged = next(e for e in log if str(e["seq"]) == first[0])
    assert page.text("detail-reason") == logged["response"]["reason"]
    for k, v in logged["response"]["details"].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            assert page.text(f"detail-{k}").split()[-1] == _fmt(v), k
    page.shot("decision-log")
    assert_only_local(requests_sent(page.d), server.url)


def test_another_owner_sees_only_its_own(live):
    server, _api, _ids, page = live
    _sign_in(page, server, "acme")
    page.el("cluster-acme-secret")
    assert [r[0] for r in page.rows("clusters")] == ["acme-secret"]
    assert "No streams yet." in page.d.page_source
    page.go("#/log", "log")
    for other in ("dra-east", "ff-west", "batch", "paas", "web-tier"):
        assert other not in page.d.page_source, other
    page.go("#/placement", "configurations")
    assert "dra-east" not in page.d.page_source


def test_an_idle_page_only_lists_versions(live):
    """While nothing changes, each poll is the two listings (database reads): no /state (an
    engine read), no log reads, however long the page stays open."""
    server, _api, _ids, page = live
    _sign_in(page, server, "default")
    page.el("clusters")
    requests_sent(page.d)  # drain what drawing the page asked for
    seen = [page.text("status")]

    def polled_three_times(_):
        now = page.text("status")
        if now != seen[-1]:
            seen.append(now)
        return len(seen) > 3
    page.wait.until(polled_three_times)
    paths = {httpx.URL(u).path for u in requests_sent(page.d)}
    assert paths == {"/v1/clusters", "/v1/reservations"}, paths


# Holds the page's requests whose URL contains a pattern until released, and records every
# request with the key it carried: a poll can then be caught in flight deterministically.
HOLD = """
const h = window.__hold = {pattern: arguments[0], held: [], sent: []};
window.__fetch = window.__fetch || window.fetch;
window.fetch = (url, opts) => {
  const auth = (opts && opts.headers && opts.headers.Authorization) || "";
  h.sent.push([String(url), auth]);
  if (h.pattern && String(url).includes(h.pattern))
    return new Promise((ok, fail) => h.held.push(() => window.__fetch(url, opts).then(ok, fail)));
  return window.__fetch(url, opts);
};
"""
RELEASE = "const h = window.__hold; h.pattern = null; h.held.splice(0).forEach((go) => go());"


@pytest.mark.parametrize("phase", ["listing", "state"])
def test_forgetting_the_key_mid_poll_draws_nothing_the_poll_read(live, phase):
    """'Forget key' clicked while a poll waits on the listings (phase 'listing') or on a
    cluster's /state (phase 'state'): when the answers arrive, the key prompt stays, the
    previous owner's clusters are not drawn and no request goes out without a key."""
    from selenium.webdriver.common.by import By

    server, api, ids, page = live
    _sign_in(page, server, "default")  # the owner of the cluster whose version moves below
    page.el("clusters")
    page.d.execute_script(HOLD, "/v1/clusters?" if phase == "listing" else "/state")
    # A version moves, so the poll's drawing must re-read that cluster (nothing cached).
    _ok(api.post(f"/v1/clusters/{ids['ff']}/arrivals", json={
        "event_id": f"race-{phase}", "job_id": f"race-{phase}", "job_type": "small"}))
    page.d.execute_script("location.hash = '#/overview?race=' + arguments[0]", phase)
    page.wait.until(lambda d: d.execute_script("return window.__hold.held.length") > 0)
    # Only one poll runs at a time, so the one holding a request is the one in flight.
    polls = int(page.el("status").get_attribute("data-polls") or 0)
    page.d.find_element(By.ID, "forget-key").click()
    sent = page.d.execute_script("return window.__hold.sent.length")
    page.d.execute_script(RELEASE)
    page.wait.until(lambda _: int(page.el("status").get_attribute("data-polls")) > polls)

    assert "needs an API key" in page.text("needs-key")
    assert not page.d.find_elements(By.CSS_SELECTOR, "[data-testid='clusters']")
    assert page.d.execute_script("return document.getElementById('key-dialog').open")
    after = page.d.execute_script("return window.__hold.sent.slice(arguments[0])", sent)
    assert after == [], after


def test_an_idle_wall_clock_queue_is_healthy_however_far_its_clock_trails(live):
    """The tick loop leaves an idle RMS cluster's clocks to its next event: its `behind`
    grows with nothing waiting on it, which is no lag worth a warning. A `*_queue` baseline
    has no clocks, and a job waiting there starts on a departure, not on a tick."""
    server, _api, _ids, page = live
    admin = {"Authorization": f"Bearer {_key(server, 'idle', 'admin')}"}
    wall = {"clock": "wall", "time_unit_seconds": 0.001}
    with httpx.Client(base_url=server.url, headers=admin, timeout=30) as api:
        _ok(api.post("/v1/clusters", json={
            **RMS, "name": "idle-ffq", "policy": {"kind": "first_fit_queue", **wall}}))
        rms = _ok(api.post("/v1/clusters", json={
            **RMS, "name": "idle-rms", "policy": {"kind": "rms", **wall, "clock_rate": 0.1,
                                                  "mu": 0.1}}))["id"]
        waits = _ok(api.post("/v1/clusters", json={
            **RMS, "name": "waits-ffq", "policy": {"kind": "first_fit_queue", **wall}}))["id"]
        for i in range(3):  # two large jobs fill both servers; the third waits
            _ok(api.post(f"/v1/clusters/{waits}/arrivals", json={
                "event_id": f"a{i}", "job_id": f"w{i}", "job_type": "large"}))
        st = _ok(api.get(f"/v1/clusters/{waits}/state"))
        assert st["queues"]["large"] == 1 and st["clock"]["next_event_at"] is None
        # Wait until the idle RMS cluster's clocks trail by more than the page would flag
        # while a job waited (a time unit).
        for _ in range(100):
            if _ok(api.get(f"/v1/clusters/{rms}/state"))["clock"]["behind"] > 5:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the idle cluster's clock never trailed the wall clock")
    _sign_in(page, server, "idle")
    for name in ("idle-rms", "idle-ffq", "waits-ffq"):
        row = page.el(f"cluster-{name}")
        cell = row.find_element("css selector", "[data-testid='health']")
        assert cell.get_attribute("class").split() == ["ok"], (name, cell.text)
        assert "nothing waits for a clock" in cell.text, (name, cell.text)
    page.go(f"#/queues?c={waits}", "kpi-lag")
    assert "bad" not in page.el("kpi-lag").get_attribute("class").split()


# One server that a job of type "whole" fills: every job waits for the one before it, so the
# forecast of a waiting job's start is exact.
WHOLE = {"name": "whole", "dimensions": ["cpu", "memory"],
         "server_pools": [{"name": "m", "count": 1, "capacity": {"cpu": 8, "memory": 8}}],
         "job_types": [{"name": "whole", "demand": {"cpu": 8, "memory": 8}}],
         "policy": {"kind": "first_fit_queue", "clock": "client"}}


def test_the_queues_page_shows_when_a_waiting_job_is_expected_to_start(live):
    """Every finished job ran exactly one time unit (b waited for a); r started at 10, so at
    10.25 it has 0.75 left, and q, waiting behind it, starts at 11 in every simulated future:
    11 (80%: 11–11), 0.75 from now. Forecasts are read once per version (no redraw without
    an event reads them again), and for the first 8 waiting jobs only: one listing and 8 GETs."""
    server, _api, _ids, page = live
    admin = {"Authorization": f"Bearer {_key(server, 'forecast', 'admin')}"}
    with httpx.Client(base_url=server.url, headers=admin, timeout=30) as api:
        cid = _ok(api.post("/v1/clusters", json=WHOLE))["id"]
        url = f"/v1/clusters/{cid}"
        for kind, job, at in [("arrivals", "a", 0), ("arrivals", "b", 0.5),
                              ("departures", "a", 1), ("departures", "b", 2),
                              ("arrivals", "w0", 3), ("departures", "w0", 4),
                              ("arrivals", "w1", 5), ("departures", "w1", 6),
                              ("arrivals", "w2", 7), ("departures", "w2", 8),
                              ("arrivals", "r", 10), ("arrivals", "q", 10.25)]:
            body = {"event_id": f"{kind}-{job}", "job_id": job, "at": at}
            _ok(api.post(f"{url}/{kind}", json=body if kind == "departures" else
                         {**body, "job_type": "whole"}))
        q = _ok(api.get(f"{url}/jobs/q"))
        assert q["status"] == "queued" and q["position"] == 0
        assert {k: q["forecast"][k] for k in ("median", "low", "high", "finished_jobs")} == \
            {"median": 11.0, "low": 11.0, "high": 11.0, "finished_jobs": 5}

        _sign_in(page, server, "forecast")
        page.go(f"#/queues?c={cid}", "forecasts")
        assert page.rows("forecasts") == [["q", "whole", "0", "10.25", "11 (80%: 11–11)",
                                           "in 0.75"]]
        assert _forecast_rows([q], 10.25) == page.rows("forecasts")
        assert page.text("kpi-now") == "10.25"
        # Polls with nothing new redraw nothing and read no job again.
        requests_sent(page.d)
        polls = int(page.el("status").get_attribute("data-polls"))
        page.wait.until(lambda _: int(page.el("status").get_attribute("data-polls")) > polls + 2)
        assert not [u for u in requests_sent(page.d) if "/jobs" in u]

        # More waiting jobs than the page forecasts: the first 8 by id, nine requests in all.
        page.go("#/overview", "clusters")
        for i in range(10):
            _ok(api.post(f"{url}/arrivals", json={"event_id": f"x{i}", "job_id": f"x{i:02}",
                                                  "job_type": "whole", "at": 10.5}))
        requests_sent(page.d)
        page.go(f"#/queues?c={cid}", "forecasts")
        page.wait.until(lambda _: page.rows("forecasts") ==
                        _forecast_rows(_waiting(api, cid), 10.5))
        assert [r[0] for r in page.rows("forecasts")] == ["q", *(f"x{i:02}" for i in range(7))]
        assert page.rows("forecasts")[0][4:] == ["11 (80%: 11–11)", "in 0.5"]
        assert "(the first 8 of 11, by job id)" in page.text("page-queues")
        sent = requests_sent(page.d)
        assert sorted(httpx.URL(u).path for u in sent if "/jobs" in u) == sorted(
            [f"{url}/jobs", f"{url}/jobs/q", *(f"{url}/jobs/x{i:02}" for i in range(7))])
    assert_only_local(sent, server.url)


# -- What if ------------------------------------------------------------------------------

WHATIF = {**DRA, "name": "dra-whatif",
          "server_pools": [{"name": "m", "count": 3, "capacity": {"cpu": 8}}]}


def _pct(x: float) -> str:
    """How the page prints a share (dom.js pct)."""
    return f"{100 * x:.1f}%"


def _compute(server: LiveServer, run_id: str) -> None:
    """Compute a run as the service's background child would (the test server runs no
    what-if worker): claim its lease, then replay and store the result."""
    from app.config import Settings
    from app.service.background import Leases
    from app.service.context import ServiceContext
    from app.sim.whatif.background import Run
    from app.store.models import WhatIf

    settings = Settings(database_url=server.env["HEADROOM_DATABASE_URL"])
    ctx = ServiceContext.from_settings(settings)
    try:
        t = WhatIf.__table__
        assert Leases(ctx, t, t.c.id, "dashboard-test").claim(run_id)
    finally:
        ctx.close()
    Run(settings, run_id, "dashboard-test").run()


@pytest.fixture(scope="module")
def whatif(live):
    """A placement cluster of owner 'whatif' with a log of arrivals and departures (some
    rejected), and that owner's admin client."""
    import random

    server = live[0]
    admin = {"Authorization": f"Bearer {_key(server, 'whatif', 'admin')}"}
    with httpx.Client(base_url=server.url, headers=admin, timeout=30) as api:
        cid = _ok(api.post("/v1/clusters", json=WHATIF))["id"]
        rng, running = random.Random(1), []
        for i in range(80):
            if running and rng.random() < 0.4:
                job = running.pop(rng.randrange(len(running)))
                _ok(api.post(f"/v1/clusters/{cid}/departures", json={
                    "event_id": f"d{i}", "job_id": job}))
            elif _ok(api.post(f"/v1/clusters/{cid}/arrivals", json={
                    "event_id": f"a{i}", "job_id": f"j{i}",
                    "job_type": rng.choice(["small", "large"])}))["decision"] == "placed":
                running.append(f"j{i}")
        yield api, cid


def _status(page: Page, run_id: str) -> str:
    return page._read(lambda: page.el(f"run-{run_id}").get_attribute("data-status"))


def test_the_what_if_page_shows_a_runs_figures_side_by_side(live, whatif):
    """A run started through the API shows queued with its progress, then (computed) both
    sides' figures, the alternative's assumptions, the utilisation of both over the window
    and the first differing decisions, all as the API reports them; a read key reads it all,
    and starting a run with it shows the service's 403."""
    from selenium.webdriver.common.by import By

    server, _api, _ids, page = live
    api, cid = whatif
    r = api.post(f"/v1/clusters/{cid}/what-if", json={
        "policy": {"kind": "power_of_d", "d": 2}, "seeds": [0, 1, 2]})
    run = _ok(r)
    _sign_in(page, server, "whatif")
    page.go(f"#/whatif?c={cid}", f"run-{run['id']}")
    assert _status(page, run["id"]) == "queued"
    total = run["progress"]["events_total"]
    assert total == 80
    assert page._read(lambda: page.el(f"run-{run['id']}").find_element(
        By.CSS_SELECTOR, "[data-testid='progress']").text) == f"0 / {total}"
    assert "Waiting for a worker" in page.text("run-status")

    _compute(server, run["id"])
    # The page redraws on its own while the run is open: no reload.
    page.wait.until(lambda _: _status(page, run["id"]) == "done")
    res = _ok(api.get(r.headers["location"]))["result"]
    ran, alt = res["policy"], res["alternative"]
    assert ran["reproduces_log"] and res["random"]  # lifetimes drawn: a range over seeds
    figures = {row[0]: row[1:] for row in page.rows("figures")}
    acc = alt["over_seeds"]["acceptance"]
    assert figures["acceptance"] == [
        _pct(ran["summary"]["acceptance"]), _pct(alt["summary"]["acceptance"]),
        f"{_pct(acc['mean'])} ({_pct(acc['min'])}–{_pct(acc['max'])}, 3 seeds)"]
    assert ran["summary"]["acceptance"] != alt["summary"]["acceptance"]
    assert figures["reward rate"][:2] == [_fmt(ran["summary"]["reward_rate"]),
                                          _fmt(alt["summary"]["reward_rate"])]
    assert figures["utilisation (cpu, time average)"][:2] == [
        _pct(ran["summary"]["utilization"]["cpu"]), _pct(alt["summary"]["utilization"]["cpu"])]
    for t, x in alt["summary"]["per_type"].items():
        assert figures[f"acceptance of {t}"][1] == \
            f"{_pct(x['acceptance'])} ({x['admitted']} of {x['arrivals']})"
    assert page.rows("assumptions") == [[a["assumption"], _fmt(a["events"]), a["meaning"]]
                                        for a in alt["assumptions"]]
    assert alt["assumptions"]
    # Both sides' utilisation over the window, drawn from the result's series.
    for name, side in ((f"{ran['kind']} (ran)", ran), (f"{alt['kind']} (what if)", alt)):
        points = page._read(lambda n=name: json.loads(page.el("chart-whatif").find_element(
            By.CSS_SELECTOR, f"path[data-series='{n}']").get_attribute("data-points")))
        assert points == side["summary"]["series"], name
    # The first differing decisions: seq, the event, the logged answer and both sides'.
    first = res["differences"]["first"]
    assert first
    rows = page.rows("differences")
    assert [row[0] for row in rows] == [str(d["seq"]) for d in first]
    for row, d in zip(rows, first):
        assert row[1].startswith(f"{d['event']['kind']} {d['event']['job_id']}")
        assert row[2].split()[0] == d["logged"]["decision"]
        assert row[3].split()[0] == d["policy"]["decision"]
        assert row[4].split()[0] == (d["alternative"] or {}).get("decision", "dropped")
    page.shot("what-if")

    # A read key may not start a run: the form shows the service's problem, and none starts.
    page.fill("start-params", '{"d": 5}')
    page.click("start-submit")
    page.wait.until(lambda _: page.text("start-error") ==
                    "403 forbidden: this API key lacks the 'write' scope")
    assert [x["id"] for x in _ok(api.get(f"/v1/clusters/{cid}/what-if"))["items"]] == [run["id"]]
    assert_only_local(requests_sent(page.d), server.url)


def test_a_write_key_starts_runs_from_the_page_and_the_advisor_ranks_every_kind(live, whatif):
    """With a write key the form starts runs: a bad parameter is the service's 422 naming the
    field; an advisor run shows, once computed, its statement and ranking as the API reports
    them; a queued run is cancelled from the page."""
    from selenium.webdriver.common.by import By

    server, _api, _ids, page = live
    api, cid = whatif
    url = f"/v1/clusters/{cid}/what-if"
    before = {x["id"] for x in _ok(api.get(url))["items"]}
    _sign_in(page, server, "whatif", "write")
    page.go(f"#/whatif?c={cid}", "start-form")

    page.choose("start-kind", "power_of_d")
    page.fill("start-params", '{"d": 0}')
    page.click("start-submit")
    page.wait.until(lambda _: page.text("start-error") ==
                    "422 validation_error: policy.d: Input should be greater than or equal to 1")

    page.choose("start-question", "advise")
    page.choose("start-objective", "acceptance")
    page.fill("start-seeds", "0, 1")
    page.click("start-submit")
    page.wait.until(lambda _: len(_ok(api.get(url))["items"]) == len(before) + 1)
    run = next(x for x in _ok(api.get(url))["items"] if x["id"] not in before)
    assert run["request"]["advise"]["objective"] == "acceptance"
    assert run["request"]["seeds"] == [0, 1]
    # The page moved to the new run, open and live.
    page.wait.until(lambda d: d.execute_script("return location.hash").endswith(
        f"run={run['id']}"))
    assert _status(page, run["id"]) == "queued"
    page.until_text("start-error", "")

    _compute(server, run["id"])
    page.wait.until(lambda _: _status(page, run["id"]) == "done")
    advice = _ok(api.get(f"{url}/{run['id']}"))["result"]["advice"]
    assert page.text("advice-statement") == advice["statement"]
    rows = page.rows("ranking")
    assert [row[:4] for row in rows] == [
        [str(x["rank"]), x["label"] + (" (ran)" if x["is_current"] else ""), _pct(x["score"]),
         f"{_pct(x['interval']['min'])}–{_pct(x['interval']['max'])} "
         f"({x['interval']['seeds']} seeds)" if x["interval"] else "—"]
        for x in advice["ranking"]]
    assert [row[5] for row in rows] == ["yes" if x["meets_constraint"] else "no"
                                        for x in advice["ranking"]]
    assert sum(x["is_current"] for x in advice["ranking"]) == 1 and len(rows) > 2
    drawn = page._read(lambda: [p.get_attribute("data-series") for p in page.el(
        "chart-advice").find_elements(By.CSS_SELECTOR, "path[data-series]")])
    assert drawn == [x["label"] + (" (ran)" if x["is_current"] else "")
                     for x in advice["ranking"]]
    page.shot("what-if-advisor")

    # A queued run, cancelled from the page.
    queued = _ok(api.post(url, json={"policy": {"kind": "best_fit"}}))
    page.go(f"#/whatif?c={cid}&run={queued['id']}", f"cancel-{queued['id']}")
    page.click(f"cancel-{queued['id']}")
    page.wait.until(lambda _: _status(page, queued["id"]) == "cancelled")
    assert _ok(api.get(f"{url}/{queued['id']}"))["status"] == "cancelled"
