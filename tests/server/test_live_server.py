"""The real thing: `headroom serve` as separate processes, driven over real HTTP."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, text

from tests.helpers import cluster_spec
from tests.live import LiveServer


def test_serve_on_sqlite_migrates_and_serves_docs(tmp_path):
    with LiveServer(f"sqlite:///{tmp_path / 'live.db'}") as server:
        with server.client(10) as c:
            docs = c.get("/docs")
            assert docs.status_code == 200 and "swagger" in docs.text.lower()
            assert c.get("/openapi.json").json()["info"]["title"] == "Headroom"
            cid = c.post("/v1/clusters", json=cluster_spec()).json()["id"]
            r = c.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": "e1", "job_id": "j1", "job_type": "large"})
            assert r.json()["decision"] == "placed"


@pytest.mark.postgres
def test_fifty_concurrent_requests_two_workers_no_lost_update(postgres_url):
    """50 threads, 50 distinct event ids, one cluster, two server processes: every request
    commits exactly once, the versions are exactly 1..50, the log has no gap."""
    n = 50
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",)) as server:
        with server.client(30) as c:
            cid = c.post("/v1/clusters",
                         json=cluster_spec(servers=20, policy={"kind": "first_fit"})).json()["id"]

        def post(i: int) -> dict:
            with server.client(30) as cc:
                r = cc.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"e{i}", "job_id": f"j{i}", "job_type": "small"})
                assert r.status_code == 200, r.text
                return r.json()

        with ThreadPoolExecutor(max_workers=n) as pool:
            answers = list(pool.map(post, range(n)))

        assert sorted(a["event_seq"] for a in answers) == list(range(1, n + 1))
        assert all(a["decision"] == "placed" and not a["replayed"] for a in answers)
        # 20 servers x 4 small slots: first-fit in seq order fills rack-0..rack-12 exactly.
        by_seq = sorted(answers, key=lambda a: a["event_seq"])
        assert [a["server_id"] for a in by_seq] == [f"rack-{i // 4}" for i in range(n)]
        with server.client(10) as c:
            assert c.get(f"/v1/clusters/{cid}").json()["version"] == n
            assert c.get(f"/v1/clusters/{cid}/state").json()["jobs"] == n

    engine = create_engine(postgres_url)
    with engine.connect() as conn:
        seqs = [r[0] for r in conn.execute(
            text("SELECT seq FROM events WHERE cluster_id = :c ORDER BY seq"), {"c": cid})]
        version = conn.execute(text("SELECT version FROM clusters WHERE id = :c"),
                               {"c": cid}).scalar_one()
    engine.dispose()
    assert seqs == list(range(1, n + 1)) and version == n


@pytest.mark.postgres
def test_concurrent_retries_of_one_event_apply_it_once(postgres_url):
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",)) as server:
        with server.client(30) as c:
            cid = c.post("/v1/clusters", json=cluster_spec()).json()["id"]

        def post(_: int) -> dict:
            with server.client(30) as cc:
                return cc.post(f"/v1/clusters/{cid}/arrivals",
                               json={"event_id": "same", "job_id": "j", "job_type": "small"}
                               ).json()

        with ThreadPoolExecutor(max_workers=16) as pool:
            answers = list(pool.map(post, range(16)))
        assert {a["event_seq"] for a in answers} == {1}
        assert sum(not a["replayed"] for a in answers) == 1
        assert len({a["server_id"] for a in answers}) == 1
        with server.client(10) as c:
            assert c.get(f"/v1/clusters/{cid}").json()["version"] == 1


@pytest.mark.postgres
def test_dra_state_survives_a_killed_server(postgres_url):
    """SIGKILL the service mid-life, start it again: the state is identical and the next
    decisions continue from it (the same answer a dry run gave before the kill)."""
    import os
    import signal

    spec = cluster_spec(servers=8, policy={"kind": "dra", "reservation": {"slots": 2}})
    with LiveServer(postgres_url, extra_args=("--no-migrate",),
                    env={"HEADROOM_SNAPSHOT_EVERY": "7"}) as server:
        with server.client(10) as c:
            cid = c.post("/v1/clusters", json=spec).json()["id"]
            for i in range(30):
                if i % 4 == 3:
                    c.post(f"/v1/clusters/{cid}/departures",
                           json={"event_id": f"d{i}", "job_id": f"j{i - 3}"})
                else:
                    c.post(f"/v1/clusters/{cid}/arrivals",
                           json={"event_id": f"a{i}", "job_id": f"j{i}",
                                 "job_type": "large" if i % 5 == 0 else "small"})
            before = c.get(f"/v1/clusters/{cid}/state").json()
            probe = c.post(f"/v1/clusters/{cid}/arrivals",
                           json={"job_id": "probe", "job_type": "small", "dry_run": True}).json()
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait()

    with LiveServer(postgres_url, extra_args=("--no-migrate",)) as server:
        with server.client(10) as c:
            assert c.get(f"/v1/clusters/{cid}/state").json() == before
            after = c.post(f"/v1/clusters/{cid}/arrivals",
                           json={"event_id": "after", "job_id": "probe",
                                 "job_type": "small"}).json()
            assert (after["decision"], after["server_id"]) == \
                (probe["decision"], probe["server_id"])
            assert after["event_seq"] == before["version"] + 1


def test_a_worker_starved_for_seconds_is_not_replaced(postgres_url):
    """A worker that answers nothing for 8 s (SIGSTOP: as starved of CPU as a process gets) is
    left to answer once it runs again: uvicorn's supervisor would replace it after 5 s, dropping
    its connections, and `headroom serve` gives it 30 s."""
    import os
    import signal
    import time

    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",),
                    env={"HEADROOM_LOG_LEVEL": "info"}) as server:
        workers = server.workers()
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGSTOP)
        try:
            time.sleep(8)
        finally:
            os.kill(workers[0], signal.SIGCONT)
        time.sleep(1)
        assert server.workers() == workers
        with server.client(10) as c:
            assert c.get("/readyz").status_code == 200
        assert "died" not in server.log_path.read_text(errors="replace")
