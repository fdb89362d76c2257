"""RMS clusters created before M was corrected (#15) replay exactly as they were logged.

M enters the weight floor of (4), so it changes decisions. A cluster created since stores
``max_jobs_rule: configurations`` in its spec; one created before has no such key and keeps
the single-type rule. Here a cluster's stored spec is put back to the old shape, events are
decided and logged by one app, and a second app (cold cache: snapshot plus the verified replay
of the log tail) must reach the same state and go on deciding like the old rule."""

from __future__ import annotations

import random

import numpy as np
from sqlalchemy import update

from app.main import create_app
from app.policies.model import cluster_model
from app.policies.rms import make_scheduler
from app.store.models import Cluster
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec

# Either type alone fits once in a server, one of each fits together: M is 1 by the old rule,
# 2 by the paper's. eps near 1 makes the floor (eps / 8M) matter as much as it can.
CROSS = {"dimensions": ["cpu", "memory"],
         "server_pools": [{"name": "s", "count": 2, "capacity": {"cpu": 1, "memory": 1}}],
         "job_types": [{"name": "c", "demand": {"cpu": 0.6, "memory": 0.1}, "reward": 1},
                       {"name": "m", "demand": {"cpu": 0.1, "memory": 0.6}, "reward": 1}]}
POLICY = {"kind": "rms", "clock": "client", "epsilon": 0.99, "clock_rate": 1.0}


def _drive(clients, cid, twins, n, start, t0, rng, running):
    """n random events through the clients (alternating at random); every answer must be
    the first twin's. Returns the time reached and whether the other twins ever differed."""
    differed = [False] * (len(twins) - 1)
    t = t0
    for i in range(start, start + n):
        c = clients[rng.random() < 0.5]
        t += rng.expovariate(2.0)
        roll = rng.random()
        if roll < 0.55:
            jt = "c" if rng.random() < 0.8 else "m"  # a long c queue: m's weight is the floor
            body = {"event_id": f"e{i}", "job_id": f"j{i}", "job_type": jt, "at": t}
            got = c.post(f"/v1/clusters/{cid}/arrivals", json=body).json()
            wants = [tw.arrive(f"j{i}", jt, t) for tw in twins]
        elif roll < 0.8 and running:
            jid = running.pop(rng.randrange(len(running)))
            got = c.post(f"/v1/clusters/{cid}/departures",
                         json={"event_id": f"e{i}", "job_id": jid, "at": t}).json()
            wants = []
            for tw in twins:  # a job the other rule has not started cannot leave there
                wants.append(tw.depart(jid, t) if jid in tw.running else None)
        else:
            got = c.post(f"/v1/clusters/{cid}/tick", json={"until": t}).json()
            wants = [{"started": tw.advance(t)} for tw in twins]
        want = wants[0]
        if want.get("decision") == "started":
            running.append(f"j{i}")
        running += [s["job_id"] for s in want["started"]]
        assert got["started"] == want["started"], (i, got, want)
        for k, w in enumerate(wants[1:]):
            differed[k] |= w is None or w["started"] != want["started"] \
                or w.get("decision") != want.get("decision")
    return t, differed


def test_a_cluster_created_with_the_old_rule_replays_and_decides_as_logged(db_url):
    settings = make_settings(db_url, snapshot_every=4, tick_interval_seconds=0)
    first = create_app(settings, configure_logs=False)
    with admin_client(first) as c0:
        r = c0.post("/v1/clusters", json=cluster_spec(policy=POLICY, seed=5, **CROSS))
        assert r.status_code == 201, r.text
        created = r.json()
        assert created["policy"]["max_jobs_rule"] == "configurations"  # new clusters say so
        cid = created["id"]
        old_spec = {k: created[k] for k in ("dimensions", "server_pools", "job_types", "seed")}
        old_spec["policy"] = {k: v for k, v in created["policy"].items()
                              if k != "max_jobs_rule"}
        with first.state.ctx.sessions() as s, s.begin():  # the row as a pre-#15 cluster has it
            stored = s.get(Cluster, cid).spec
            s.execute(update(Cluster).where(Cluster.id == cid).values(
                spec={**stored, "policy": old_spec["policy"]}))
        model = cluster_model(old_spec)
        params = {k: v for k, v in old_spec["policy"].items()
                  if k not in ("kind", "clock", "time_unit_seconds")}
        old, new = (make_scheduler("rms", model, {**params, "max_jobs_rule": rule},
                                   np.random.default_rng(5))
                    for rule in ("one_type", "configurations"))
        assert (old.M, new.M) == (1, 2)
        assert c0.get(f"/v1/clusters/{cid}/state").json()["max_jobs_per_server"] == 1
        rng, running = random.Random(9), []
        t, (differed,) = _drive((c0, c0), cid, [old, new], 120, 0, 0.0, rng, running)
        assert differed, "the two rules never decided differently: the test proves nothing"

    # A second app: cold cache, so it loads the newest snapshot and replays (and verifies) the
    # logged tail with the engine its spec builds; then both apps go on deciding.
    second = create_app(settings, configure_logs=False)
    first = create_app(settings, configure_logs=False)
    with admin_client(second) as c1, admin_client(first) as c0:
        state = c1.get(f"/v1/clusters/{cid}/state").json()
        assert state["max_jobs_per_server"] == 1
        assert state["queues"] == dict(zip(["c", "m"], old.queue_lengths()))
        assert state["arrived"] == old.arrived
        _drive((c0, c1), cid, [old], 60, 120, t, rng, running)
        events = c1.get(f"/v1/clusters/{cid}/events", params={"limit": 500}).json()
        assert len(events["items"]) >= 150  # every event was logged, and replays agreed
