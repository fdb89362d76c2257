"""Start-time forecasts over HTTP: a waiting job's GET carries one (exact where the future is
determined), the same state answers the same, a running job carries none, and a job with no
history to learn from says why."""

from __future__ import annotations

from tests.api.test_queues import arrive, depart, job
from tests.helpers import cluster_spec

ONE_SERVER = [{"name": "s", "count": 1, "capacity": {"cpu": 8, "memory": 8}}]
WHOLE = [{"name": "whole", "demand": {"cpu": 8, "memory": 8}}]


def test_a_waiting_job_has_a_forecast_of_its_start(client):
    cid = client.post("/v1/clusters", json=cluster_spec(
        policy={"kind": "first_fit_queue", "clock": "client"}, server_pools=ONE_SERVER,
        job_types=WHOLE)).json()["id"]
    assert arrive(client, cid, "a", "a", "whole", at=0.0).json()["decision"] == "started"
    assert arrive(client, cid, "b", "b", "whole", at=0.5).json()["decision"] == "queued"
    first = job(client, cid, "b").json()
    assert first["status"] == "queued"
    assert first["forecast"]["reason"] == "no finished job yet to draw lifetimes from"
    assert "median" not in first["forecast"] and first["forecast"]["samples"] == 0
    # Every finished job runs exactly 1.0: a waiting job's start is then determined.
    depart(client, cid, "da", "a", at=1.0)  # b starts at 1.0
    depart(client, cid, "db", "b", at=2.0)
    for i in range(3):
        arrive(client, cid, f"w{i}", f"w{i}", "whole", at=3.0 + 2 * i)
        depart(client, cid, f"dw{i}", f"w{i}", at=4.0 + 2 * i)
    arrive(client, cid, "r", "r", "whole", at=10.0)
    assert arrive(client, cid, "q", "q", "whole", at=10.25).json()["decision"] == "queued"
    r = job(client, cid, "q")
    assert r.status_code == 200, r.text
    f = r.json()["forecast"]
    assert (f["median"], f["low"], f["high"], f["level"]) == (11.0, 11.0, 11.0, 0.8)
    assert f["finished_jobs"] == 5 and f["started"] == f["samples"] > 0
    assert job(client, cid, "q").json() == r.json()  # the same state, the same forecast
    running = job(client, cid, "r").json()
    assert running["status"] == "running" and "forecast" not in running
    # The cluster's state and log did not move for the forecasts.
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 12


def test_past_its_forecasts_at_once_a_process_answers_without_one(client, monkeypatch):
    import threading

    from app.service import forecasts

    cid = client.post("/v1/clusters", json=cluster_spec(
        policy={"kind": "first_fit_queue", "clock": "client"}, server_pools=ONE_SERVER,
        job_types=WHOLE)).json()["id"]
    arrive(client, cid, "a", "a", "whole", at=0.0)
    depart(client, cid, "da", "a", at=1.0)
    arrive(client, cid, "r", "r", "whole", at=2.0)
    arrive(client, cid, "q", "q", "whole", at=2.5)
    monkeypatch.setattr(forecasts, "_slots", threading.BoundedSemaphore(1))
    assert forecasts._slots.acquire(blocking=False)  # another request's forecast is running
    busy = job(client, cid, "q")
    assert busy.status_code == 200 and busy.json()["status"] == "queued"
    assert busy.json()["forecast"] == {"level": 0.8, "samples": 0, "started": 0,
                                       "reason": forecasts.BUSY}
    forecasts._slots.release()
    # Not kept: the next GET computes it.
    f = job(client, cid, "q").json()["forecast"]
    assert (f["median"], f["finished_jobs"]) == (3.0, 1)
