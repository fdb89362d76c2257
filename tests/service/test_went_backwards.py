"""A database that moved backwards is a loud error, not a silent fork (issue #60).

Simulated without Patroni: the log's tail is deleted and the cluster's version set back, as a
promotion of a replica that missed commits (or a restored backup) would leave it. A process
that answered those commits must refuse to decide (or read) on the older state, since deciding
again would hand out the lost seqs a second time, with other answers; it logs an ERROR.
"""

from __future__ import annotations

import logging

from sqlalchemy import create_engine, delete, func, select, update

from app.main import create_app
from app.store.models import Cluster, Event
from tests.conftest import admin_client, make_settings
from tests.helpers import assert_problem, cluster_spec


def _arrive(client, cid: str, n: int):
    return client.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": f"e{n}", "job_id": f"j{n}", "job_type": "small"})


def _lose_commits_after(url: str, cid: str, seq: int) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(delete(Event).where(Event.cluster_id == cid, Event.seq > seq))
        conn.execute(update(Cluster).where(Cluster.id == cid).values(version=seq))
    engine.dispose()


def _log_length(url: str, cid: str) -> tuple[int, int]:
    engine = create_engine(url)
    with engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(Event)
                         .where(Event.cluster_id == cid)).scalar_one()
        version = conn.execute(select(Cluster.version).where(Cluster.id == cid)).scalar_one()
    engine.dispose()
    return n, version


def test_a_version_below_one_seen_is_refused_loudly(db_url, caplog):
    # Cache of one engine, and a second cluster to evict the first: the check must not rely
    # on the engine still being cached.
    app = create_app(make_settings(db_url, engine_cache_size=1), configure_logs=False)
    with admin_client(app, raise_server_exceptions=False) as c:
        cid = c.post("/v1/clusters", json=cluster_spec(policy={"kind": "first_fit"})).json()["id"]
        other = c.post("/v1/clusters", json=cluster_spec(name="other",
                                                          policy={"kind": "first_fit"})).json()["id"]
        for n in range(3):
            assert _arrive(c, cid, n).json()["event_seq"] == n + 1
        assert _arrive(c, other, 0).status_code == 200  # evicts cid's engine
        _lose_commits_after(db_url, cid, 1)

        with caplog.at_level(logging.ERROR, logger="headroom.engines"):
            r = _arrive(c, cid, 3)
        body = assert_problem(r, 500, "database_went_backwards")
        assert "version 1" in body["detail"] and "version 3" in body["detail"]
        assert any(rec.message == "database went backwards" and rec.levelno == logging.ERROR
                   for rec in caplog.records)
        assert _log_length(db_url, cid) == (1, 1), "nothing was decided on the older state"
        # A retry of an answered event (seq 3, now lost) is refused too, never re-decided.
        assert_problem(_arrive(c, cid, 2), 500, "database_went_backwards")
        assert_problem(c.get(f"/v1/clusters/{cid}/state"), 500, "database_went_backwards")
        # Other clusters are untouched.
        assert _arrive(c, other, 1).json()["event_seq"] == 2
    app.state.ctx.close()

    # A process that never saw the lost commits cannot know: it decides from the database
    # (seq 2 again). Only a process that answered them can tell, which is why the fault
    # tests (tests/ha) require synchronous replication instead.
    fresh = create_app(make_settings(db_url), configure_logs=False)
    with admin_client(fresh) as c:
        assert _arrive(c, cid, 9).json()["event_seq"] == 2
    fresh.state.ctx.close()


def test_versions_moving_forward_from_another_process_are_fine(db_url):
    """The check compares with committed versions only: another process's commits (the
    version ahead of this process's engine) are caught up as before."""
    settings = make_settings(db_url)
    a, b = (create_app(settings, configure_logs=False) for _ in range(2))
    with admin_client(a) as ca, admin_client(b) as cb:
        cid = ca.post("/v1/clusters", json=cluster_spec(policy={"kind": "first_fit"})).json()["id"]
        seqs = [(_arrive(ca if n % 2 else cb, cid, n)).json()["event_seq"] for n in range(6)]
        assert seqs == [1, 2, 3, 4, 5, 6]
        assert ca.get(f"/v1/clusters/{cid}/state").status_code == 200
    for app in (a, b):
        app.state.ctx.close()
