"""The direct-versus-PgBouncer benchmark (issue #60) at a tiny scale: it runs end to end
against a real PgBouncer in transaction mode and real `headroom serve` processes, and the
pooled route holds no more server connections than PgBouncer's pool."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sqlalchemy.engine import make_url

from app.config import Settings
from app.store.migrate import upgrade
from tests.conftest import IN_CI, FreshDatabase, _require_postgres
from tests.live import ROOT
from tests.pgbouncer import PgBouncer, missing_tools

POOL = 3


@pytest.mark.postgres
def test_one_round_each_way_counts_the_connections_held(tmp_path):
    _require_postgres()
    if missing_tools():
        if IN_CI:
            pytest.fail(f"needs {missing_tools()} (.ci/run installs pgbouncer)", pytrace=False)
        pytest.skip("pgbouncer is missing (apt-get install pgbouncer)")
    out = tmp_path / "pooling.json"
    with FreshDatabase() as db:
        upgrade(Settings(database_url=db.url))
        bouncer = PgBouncer("127.0.0.1:5432", pool_size=POOL).start()
        try:
            run = subprocess.run(
                [sys.executable, "-m", "app.bench.pooling", "--database-url", db.url,
                 "--pgbouncer-url", bouncer.url(make_url(db.url).database), "--rounds", "1",
                 "--duration", "2", "--clients", "8", "--servers", "20", "--json", str(out)],
                check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
        finally:
            bouncer.close()
    assert run.returncode == 0, run.stderr[-3000:]
    assert "round 1/1: pgbouncer" in run.stderr  # progress as it runs
    rows = {r["route"]: r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == {"direct", "pgbouncer"}
    for r in rows.values():
        assert r["errors"] == 0 and r["decisions_per_s"] > 0 and r["p99_ms"] >= r["p50_ms"] > 0
        assert r["server_connections_peak"] >= 1
    assert rows["pgbouncer"]["server_connections_peak"] <= POOL
    assert "server conns" in run.stdout  # the table
