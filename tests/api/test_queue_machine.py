"""The service against the pure engine, under hypothesis: a queued cluster driven over HTTP
through two app instances sharing one SQLite file (as two processes would), with snapshots
every two events, engine caches dropped at random (a restart), and retries. Every answer must
be the pure engine's for the same calls, and a retry must return the stored answer."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from app.main import create_app
from app.policies.rms.family import QueueAdapter
from app.store.migrate import upgrade
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec

POOLS = [{"name": "s", "count": 3, "capacity": {"cpu": 10, "memory": 10}}]
TYPES = [{"name": "two", "demand": {"cpu": 2, "memory": 1}},
         {"name": "five", "demand": {"cpu": 5, "memory": 1}}]
POLICIES = [
    {"kind": "rms", "clock": "client", "replace_dummies": True},
    {"kind": "rms", "clock": "client", "sampling": "rf", "adaptive": True},
    {"kind": "rms", "clock": "client", "routing": "po2"},
    {"kind": "best_fit_queue", "clock": "client", "order": "small_first"},
]


@pytest.fixture(scope="module")
def template_db(tmp_path_factory) -> Path:
    """One migrated SQLite file; each example starts from a copy (migrating is the slow part)."""
    path = tmp_path_factory.mktemp("queue-machine") / "template.db"
    upgrade(make_settings(f"sqlite:///{path}"))
    return path


class QueueServiceMachine(RuleBasedStateMachine):
    template: Path

    def __init__(self):
        super().__init__()
        self.dir = tempfile.mkdtemp()
        db = Path(self.dir) / "h.db"
        shutil.copy(self.template, db)
        url = f"sqlite:///{db}"
        self.apps = [create_app(make_settings(url, snapshot_every=2, tick_interval_seconds=0),
                                configure_logs=False) for _ in range(2)]
        self.clients = [admin_client(a) for a in self.apps]
        self.cid = None
        self.twin = None
        self.n = 0
        self.running: list[str] = []
        self.last: tuple | None = None  # (path, body, answer) of the last logged event

    def teardown(self):
        for c in self.clients:
            c.close()
        for a in self.apps:
            a.state.ctx.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # ---- set-up ---------------------------------------------------------------------------

    @precondition(lambda self: self.cid is None)
    @rule(policy=st.sampled_from(POLICIES), seed=st.integers(0, 1000))
    def create(self, policy, seed):
        r = self.clients[0].post("/v1/clusters", json=cluster_spec(
            policy=policy, server_pools=POOLS, job_types=TYPES, seed=seed))
        assert r.status_code == 201, r.text
        cluster = r.json()
        self.cid, self.twin = cluster["id"], QueueAdapter.build(cluster).engine

    # ---- events ---------------------------------------------------------------------------

    def _post(self, via, path, body, want):
        r = self.clients[via].post(f"/v1/clusters/{self.cid}/{path}", json=body)
        assert r.status_code in (200, 202), r.text
        got = r.json()
        assert {k: got[k] for k in want} == want, (path, got, want)
        self.running += [s["job_id"] for s in want["started"]]
        if got["event_seq"] is not None:
            self.last = (path, body, got)
        return got

    @precondition(lambda self: self.cid is not None)
    @rule(jt=st.sampled_from(["two", "five"]), dt=st.floats(0, 1), via=st.integers(0, 1))
    def arrive(self, jt, dt, via):
        jid, t = f"j{self.n}", self.twin.now + dt
        self.n += 1
        want = {**self.twin.arrive(jid, jt, t), "at": t}
        if want["decision"] == "started":
            self.running.append(jid)
        self._post(via, "arrivals", {"event_id": f"e-{jid}", "job_id": jid, "job_type": jt,
                                     "at": t}, want)

    @precondition(lambda self: self.cid is not None and self.running)
    @rule(data=st.data(), dt=st.floats(0, 1), via=st.integers(0, 1))
    def depart(self, data, dt, via):
        jid = data.draw(st.sampled_from(self.running))
        self.running.remove(jid)
        t = self.twin.now + dt
        want = {**self.twin.depart(jid, t), "at": t}
        self._post(via, "departures", {"event_id": f"d-{jid}", "job_id": jid, "at": t}, want)

    @precondition(lambda self: self.cid is not None)
    @rule(dt=st.floats(0, 3), via=st.integers(0, 1))
    def tick(self, dt, via):
        t = self.twin.now + dt
        if t <= self.twin.now or self.twin.next_event_time() >= t:
            want = {"decision": "idle", "now": self.twin.now, "started": []}
        else:
            want = {"decision": "advanced", "started": self.twin.advance(t), "now": t}
        self._post(via, "tick", {"until": t}, want)

    @precondition(lambda self: self.last is not None and self.last[0] != "tick")
    @rule(via=st.integers(0, 1))
    def retry_last(self, via):
        path, body, answer = self.last
        r = self.clients[via].post(f"/v1/clusters/{self.cid}/{path}", json=body)
        assert r.json() == {**answer, "replayed": True}

    @precondition(lambda self: self.cid is not None)
    @rule(via=st.integers(0, 1))
    def restart(self, via):
        self.apps[via].state.ctx.engines.forget(self.cid)

    # ---- invariants -----------------------------------------------------------------------

    @invariant()
    def state_matches_the_twin(self):
        if self.cid is None:
            return
        state = self.clients[1].get(f"/v1/clusters/{self.cid}/state").json()
        assert state["now"] == self.twin.now
        assert state["queues"] == dict(zip(["two", "five"], self.twin.queue_lengths()))
        assert state["arrived"] == self.twin.arrived
        assert sum(state["running"].values()) == len(self.twin.running)
        assert state["finished"] == self.twin.finished_total
        assert state["arrived"] == (sum(state["queues"].values())
                                    + sum(state["running"].values()) + state["finished"])

    @invariant()
    def jobs_pages_hold_what_the_twin_holds(self):
        if self.cid is None:
            return
        ids = self.twin.model.server_ids
        want = sorted([(jid, "queued", None) for jid in self.twin.queued]
                      + [(jid, "running", ids[s]) for jid, (s, *_) in self.twin.running.items()])
        got, params = [], {"limit": 3}
        while True:  # through the other app, in pages of 3
            page = self.clients[0].get(f"/v1/clusters/{self.cid}/jobs", params=params).json()
            assert page["total"] == len(want)
            got += [(j["job_id"], j["status"], j["server_id"]) for j in page["items"]]
            if page["next_cursor"] is None:
                break
            params["cursor"] = page["next_cursor"]
        assert got == want


def test_queue_service_machine(template_db):
    QueueServiceMachine.template = template_db
    run = QueueServiceMachine.TestCase
    run.settings = settings(max_examples=25, stateful_step_count=50, deadline=None,
                            suppress_health_check=list(HealthCheck))
    run().runTest()
