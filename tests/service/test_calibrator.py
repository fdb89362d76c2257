"""A moment declaration outside the table is calibrated for itself in the background: the job
runs in a child process, its result lands through one logged event that every process and
every replay agrees on, a finished calibration answers the next declaration like it at once,
a deleted cluster cancels its job, and a process killed mid-calibration is taken over."""

from __future__ import annotations

import os
import signal
import time

import pytest
from sqlalchemy import create_engine, text

from app.main import create_app
from app.policies.moments.recipe import Recipe, calibration_inputs
from app.policies.moments.sla import table_threshold
from app.service.calibrator import CalibrationLoop
from app.sim.moments.derive import calibrate_inputs
from tests.conftest import admin_client, make_settings
from tests.live import LiveServer

# Small enough to calibrate in seconds: a 300-core cluster's life is well under a second.
CAPACITY, SLA, LIVES = 300, 1e-3, 2


def declaration(name: str, sla: float = SLA, capacity: int = CAPACITY) -> dict:
    return {"name": name, "capacity_cores": capacity, "sla": sla,
            "policy": {"kind": "second_moment"}}


def wait_calibrated(client, cid: str, seconds: float = 240) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = client.get(f"/v1/clusters/{cid}/state").json()
        if state["threshold_derivation"].get("status") == "calibrated":
            return state
        time.sleep(0.5)
    raise AssertionError(f"not calibrated in {seconds} s: {state.get('calibration')}")


def calibrated_events(client, cid: str) -> list[dict]:
    items = client.get(f"/v1/clusters/{cid}/events", params={"limit": 1000}).json()["items"]
    return [e for e in items if e["kind"] == "threshold_calibrated"]


def test_a_calibration_lands_through_one_logged_event_and_answers_the_next_declaration(db_url):
    app = create_app(make_settings(db_url, calibration_workers=1, calibration_lives=LIVES),
                     configure_logs=False)
    with admin_client(app) as client:
        r = client.post("/v1/clusters", json=declaration("first"))
        assert r.status_code == 201, r.text
        first = r.json()
        d = first["policy"]["derivation"]
        assert (d["status"], d["interim"]) == ("calibrating", "admit_nothing")
        refused = client.post(f"/v1/clusters/{first['id']}/deployments",
                              json={"event_id": "d0", "deployment_id": "d0", "cores": 1, "at": 0})
        assert refused.json()["reason"] == "threshold_calibrating"
        state = wait_calibrated(client, first["id"])
        [event] = calibrated_events(client, first["id"])
        assert state["gate"] is None
        assert state["threshold"] == event["request"]["threshold"] is not None
        assert state["threshold_derivation"]["calibration"]["key"] == d["calibration"]["key"]
        assert state["threshold_derivation"]["runs"] == LIVES
        # The same search, run here, finds the same threshold: lives are seeded by the recipe.
        assert calibrate_inputs(d["calibration"]["key"], d["calibration"]["inputs"])[
            "threshold"] == state["threshold"]
        # A declaration like it is answered from the finished calibration, at once.
        again = client.post("/v1/clusters", json=declaration("second")).json()
        assert again["policy"]["threshold"] == state["threshold"]
        assert again["policy"]["derivation"]["status"] == "calibrated"
        assert again["policy"]["derivation"]["cached"] is True
        assert calibrated_events(client, again["id"]) == []
        # Another τ is another calibration.
        looser = client.post("/v1/clusters", json=declaration("looser", sla=1e-2)).json()
        assert looser["policy"]["derivation"]["status"] == "calibrating"
        assert looser["policy"]["derivation"]["calibration"]["key"] != d["calibration"]["key"]


def test_a_looser_sla_at_a_table_capacity_stands_on_the_table_meanwhile(db_url):
    app = create_app(make_settings(db_url), configure_logs=False)
    with admin_client(app) as client:
        c = client.post("/v1/clusters", json=declaration("loose", sla=1e-2, capacity=2000)).json()
        d = c["policy"]["derivation"]
        assert (d["status"], d["interim"], d["source"]) == ("calibrating", "table_stricter_sla",
                                                           "table")
        assert c["policy"]["threshold"] == table_threshold("second_moment", 2000, 1e-4)[0]
        state = client.get(f"/v1/clusters/{c['id']}/state").json()
        assert state["gate"] is None and state["calibration"]["status"] == "queued"
        r = client.post(f"/v1/clusters/{c['id']}/deployments",
                        json={"event_id": "d1", "deployment_id": "d1", "cores": 1, "at": 0})
        assert r.json()["decision"] == "admitted"


def _job(url: str, key: str) -> dict | None:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(text("SELECT * FROM moment_calibrations WHERE key = :k"),
                               {"k": key}).mappings().first()
        return None if row is None else dict(row)
    finally:
        engine.dispose()


def test_deleting_the_last_waiting_cluster_cancels_its_calibration(db_url):
    app = create_app(make_settings(db_url), configure_logs=False)  # no calibration runs here
    with admin_client(app) as client:
        ctx = app.state.ctx
        loop = CalibrationLoop(ctx)
        a = client.post("/v1/clusters", json=declaration("a")).json()
        b = client.post("/v1/clusters", json=declaration("b")).json()
        key = a["policy"]["derivation"]["calibration"]["key"]
        assert b["policy"]["derivation"]["calibration"]["key"] == key
        loop.run_once()
        assert _job(db_url, key)["status"] == "queued"
        assert client.delete(f"/v1/clusters/{a['id']}").status_code == 204
        loop.run_once()
        assert _job(db_url, key)["status"] == "queued"  # b still waits
        assert client.delete(f"/v1/clusters/{b['id']}").status_code == 204
        loop.run_once()
        assert _job(db_url, key)["status"] == "cancelled"
        client.post("/v1/clusters", json=declaration("c"))
        loop.run_once()
        assert _job(db_url, key)["status"] == "queued"


def test_the_inputs_name_the_calibration(db_url):
    """What the key hashes: every input a calibration's result depends on."""
    base = calibration_inputs("second_moment", 1000, 1e-3)
    assert base["arrival_rate"] == 1000 / 20000 and base["recipe"] == Recipe().to_dict()
    app = create_app(make_settings(db_url, calibration_lives=7), configure_logs=False)
    with admin_client(app) as client:
        c = client.post("/v1/clusters", json=declaration("seven")).json()
        assert c["policy"]["derivation"]["calibration"]["inputs"]["recipe"]["lives"] == 7
        # The load is part of the declaration: at a table capacity, another arrival rate than
        # the paper's is calibrated for itself.
        body = declaration("busier", sla=1e-4, capacity=2000)
        body["policy"]["arrival_rate"] = 0.3
        busier = client.post("/v1/clusters", json=body).json()
        d = busier["policy"]["derivation"]
        assert (d["status"], d["interim"]) == ("calibrating", "admit_nothing")
        assert d["calibration"]["inputs"]["arrival_rate"] == 0.3


@pytest.mark.postgres
def test_a_process_killed_mid_calibration_is_taken_over_and_every_process_agrees(postgres_url):
    """Two `headroom serve` processes on one Postgres; the one running the calibration is
    SIGKILLed half-way (its child dies with it). The other takes the job over once the lease
    expires, resumes from the candidates already evaluated, and the result lands once: both
    processes (and the killed one, restarted) hold the same threshold at the same version."""
    env = {"HEADROOM_CALIBRATION_WORKERS": "1", "HEADROOM_CALIBRATION_LIVES": "4"}
    a = LiveServer(postgres_url, env=env).__enter__()
    b = LiveServer(postgres_url, extra_args=("--no-migrate",), env=env).__enter__()
    servers = [a, b]
    try:
        with a.client(30) as ca:
            cid = ca.post("/v1/clusters", json=declaration("killed")).json()["id"]
            key = ca.get(f"/v1/clusters/{cid}/state").json()[
                "threshold_derivation"]["calibration"]["key"]
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            job = _job(postgres_url, key)
            if job and job["status"] == "running" and job["lives_done"] >= 8:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"the calibration did not get going: {job}")
        assert job["attempts"] == 1 and len(job["candidates"]) >= 2
        holder_pid = int(job["worker"].split(":")[1])
        [holder] = [s for s in servers if s.proc.pid == holder_pid]
        os.killpg(holder.proc.pid, signal.SIGKILL)
        holder.proc.wait()
        survivor = b if holder is a else a
        with survivor.client(30) as c:
            state = wait_calibrated(c, cid, seconds=300)
            version = state["version"]
            assert len(calibrated_events(c, cid)) == 1
        job = _job(postgres_url, key)
        assert job["status"] == "done" and job["attempts"] == 2
        assert job["worker"].split(":")[1] == str(survivor.proc.pid)
        # The resumed search is the search an uninterrupted run makes.
        assert calibrate_inputs(key, job["inputs"])["threshold"] == state["threshold"]
        restarted = LiveServer(postgres_url, extra_args=("--no-migrate",), env=env).__enter__()
        servers.append(restarted)
        for server in (survivor, restarted):
            with server.client(30) as c:
                view = c.get(f"/v1/clusters/{cid}/state").json()
                assert (view["threshold"], view["version"]) == (state["threshold"], version)
    finally:
        for server in servers:
            server.__exit__()
