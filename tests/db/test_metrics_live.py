"""/metrics of `headroom serve --workers 2`: whichever worker answers a scrape, the counters are
the sums over both (prometheus-client's multiprocess mode, app/metrics.py)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import cluster_spec
from tests.live import LiveServer


def _decisions(text: str) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "headroom_decisions_total":
                key = (s.labels["event"], s.labels["outcome"])
                out[key] = out.get(key, 0) + s.value
    return out


@pytest.mark.postgres
def test_two_workers_scrapes_sum_to_what_clients_sent(postgres_url, tmp_path):
    n = 60
    stale = tmp_path / "metrics"
    stale.mkdir()
    # A file an earlier server left: its counts must not be summed in.
    (stale / "counter_99999.db").write_bytes(b"\0" * 16)
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",),
                    env={"PROMETHEUS_MULTIPROC_DIR": str(stale)}) as server:
        with server.client(30) as c:
            cid = c.post("/v1/clusters", json=cluster_spec(servers=2)).json()["id"]

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

        scrapes = []
        for _ in range(20):
            with httpx.Client(base_url=server.url, timeout=10) as fresh:
                scrapes.append(_decisions(fresh.get("/metrics").text))
        assert all(s == want for s in scrapes), scrapes
