"""The idempotency lookup of a transaction probes the unique index once per id, whatever the
planner's statistics say about the cluster (issue #19: a batch run's throughput halved in a
minute because Postgres, without statistics for the cluster, scanned its whole log)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.config import Settings
from app.service.log import LOGGED_PG_SQL, logged_events
from app.store.migrate import upgrade
from tests.conftest import FreshDatabase, _require_postgres

pytestmark = pytest.mark.postgres
OLD_SHAPE = ("SELECT event_id, seq, request_hash, response FROM events "
             "WHERE cluster_id = :cluster AND event_id = ANY(:ids)")


def _plan_nodes(plan: dict[str, Any]) -> list[tuple[str, str | None]]:
    nodes = [(plan["Node Type"], plan.get("Index Name"))]
    for child in plan.get("Plans", ()):
        nodes += _plan_nodes(child)
    return nodes


def _explain(conn, sql: str, params: dict[str, Any]) -> list[tuple[str, str | None]]:
    raw = conn.execute(text("EXPLAIN (FORMAT JSON) " + sql), params).scalar_one()
    return _plan_nodes((json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"])


def _fill(conn, cluster: str, n: int) -> None:
    conn.execute(text(
        "INSERT INTO clusters (id, owner, name, policy_kind, spec, version, generation, "
        "created_at, updated_at) VALUES (:c, 'o', :c, 'first_fit', '{}', :n, 1, now(), now())"),
        {"c": cluster, "n": n})
    conn.execute(text(
        "INSERT INTO events (cluster_id, seq, event_id, kind, request_hash, request, decision, "
        "response, created_at) SELECT :c, s, 'e-' || s, 'arrival', 'h' || s, '{}', 'placed', "
        # Answers of a realistic width: the wider the rows, the cheaper a scan looks.
        "json_build_object('seq', s, 'pad', repeat('x', 500)), now() "
        "FROM generate_series(1, :n) AS s"),
        {"c": cluster, "n": n})


def test_lookup_probes_the_unique_index_while_statistics_are_stale() -> None:
    _require_postgres()
    with FreshDatabase() as db:
        upgrade(Settings(database_url=db.url))
        engine = create_engine(db.url)
        try:
            with engine.begin() as conn:
                # No statistics yet, as in a young deployment before autovacuum's first
                # ANALYZE (kept off here so that it cannot come early).
                conn.execute(text("ALTER TABLE events SET (autovacuum_enabled = false)"))
                _fill(conn, "hot", 60_000)
            # A group's worth of ids (a batch of 100), as the decision path asks.
            ids = ["e-5", "e-29999", "e-17000"] + [f"never-{n}" for n in range(97)]
            params = {"cluster": "hot", "ids": ids}
            with engine.connect() as conn:
                old = _explain(conn, OLD_SHAPE, params)
                # The hazard is real on this server: the plain shape reads the cluster's log
                # through the primary key (cluster_id, seq).
                assert ("Bitmap Index Scan", "events_pkey") in old, old
                new = _explain(conn, LOGGED_PG_SQL, params)
                assert ("Index Scan", "uq_events_cluster_event") in new, new
                assert all(index != "events_pkey" for _, index in new), new
                rows = {r.event_id: (r.seq, r.request_hash, r.response)
                        for r in logged_events(conn, "hot", ids)}
            assert {k: (seq, h, answer["seq"]) for k, (seq, h, answer) in rows.items()} == {
                "e-5": (5, "h5", 5), "e-29999": (29999, "h29999", 29999),
                "e-17000": (17000, "h17000", 17000)}
        finally:
            engine.dispose()
