"""/metrics of `headroom serve --workers 2`: whichever worker answers a scrape, the counters are
the sums over both and the per-cluster gauges are there (prometheus-client's multiprocess
mode, app/metrics.py), for scrapes that carry HEADROOM_METRICS_TOKEN."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import METRICS_TOKEN, cluster_spec
from tests.live import LiveServer

SCRAPE = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def _decisions(text: str) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "headroom_decisions_total":
                key = (s.labels["event"], s.labels["outcome"])
                out[key] = out.get(key, 0) + s.value
    return out


def _epsilons(text: str) -> dict[str, float]:
    return {s.labels["reservation"]: s.value for f in text_string_to_metric_families(text)
            for s in f.samples if s.name == "headroom_reservation_epsilon"}


@pytest.mark.postgres
def test_two_workers_scrapes_sum_to_what_clients_sent(postgres_url, tmp_path):
    n = 60
    stale = tmp_path / "metrics"
    stale.mkdir()
    # A file an earlier server left: its counts must not be summed in.
    (stale / "counter_99999.db").write_bytes(b"\0" * 16)
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",),
                    env={"PROMETHEUS_MULTIPROC_DIR": str(stale),
                         "HEADROOM_METRICS_TOKEN": METRICS_TOKEN}) as server:
        with server.client(30) as c:
            cid = c.post("/v1/clusters", json=cluster_spec(servers=2)).json()["id"]
            rid = c.post("/v1/reservations", json={
                "name": "r", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}],
                "policy": {"kind": "thor"}}).json()["id"]
            r = c.post(f"/v1/reservations/{rid}/observations",
                       json={"event_id": "p0", "period": 0, "demand": {"cpu": 3}})
            assert r.status_code == 200, r.text

        def post(i: int) -> str:
            # A fresh connection per request, so that both workers take some.
            with server.client(30) as cc:
                r = cc.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"e{i}", "job_id": f"j{i}", "job_type": "large"})
                assert r.status_code == 200, r.text
                return r.json()["decision"]

        with ThreadPoolExecutor(max_workers=8) as pool:
            sent = list(pool.map(post, range(n)))
        want = {("arrival", d): float(sent.count(d)) for d in set(sent)}
        assert len(want) == 2  # placed and rejected, while the slots last
        want[("observation", "observed")] = 1.0

        scrapes, refused = [], set()
        for _ in range(20):
            with httpx.Client(base_url=server.url, timeout=10) as fresh:
                scrapes.append(fresh.get("/metrics", headers=SCRAPE).text)
                refused.add(fresh.get("/metrics").status_code)
        assert all(_decisions(s) == want for s in scrapes), [_decisions(s) for s in scrapes]
        # One worker decided the observation; every scrape shows its stream's gauge.
        assert all(_epsilons(s) == {rid: 0.1} for s in scrapes), [_epsilons(s) for s in scrapes]
        assert refused == {401}
