"""Migration 0004 binds existing cluster limits to ids and removes the ones that were ignored."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from app.store.migrate import downgrade, upgrade
from tests.conftest import FreshDatabase, _require_postgres, make_settings

INSERT_KEY = ("INSERT INTO api_keys (id, key_hash, owner, scopes, clusters, description, "
              "created_at) VALUES (:id, :id, :owner, :scopes, :clusters, '', "
              "'2026-01-01 00:00:00+00')")
INSERT_CLUSTER = ("INSERT INTO clusters (id, owner, name, policy_kind, spec, version, "
                  "generation, created_at, updated_at) VALUES (:id, :owner, :name, "
                  "'first_fit', '{}', 0, 1, '2026-01-01 00:00:00+00', '2026-01-01 00:00:00+00')")


def _limits(engine) -> dict:
    import json
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, clusters FROM api_keys")).all()
    return {k: json.loads(v) if isinstance(v, str) else v for k, v in rows}


def _check(url: str) -> None:
    settings = make_settings(url)
    upgrade(settings, "0002")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for cid, owner, name in (("c-a", "me", "a"), ("c-b", "me", "b"),
                                     ("c-other", "acme", "a")):
                conn.execute(text(INSERT_CLUSTER), {"id": cid, "owner": owner, "name": name})
            for kid, owner, scopes, clusters in (
                    ("writer", "me", '["write"]', '["a", "gone", "b"]'),
                    ("theirs", "acme", '["read", "write"]', '["a"]'),
                    ("admin", "me", '["admin"]', '["a"]'),
                    ("reader", "me", '["read"]', '["a"]'),
                    ("open", "me", '["write"]', None)):
                conn.execute(text(INSERT_KEY), {"id": kid, "owner": owner, "scopes": scopes,
                                                "clusters": clusters})
        upgrade(settings)
        assert _limits(engine) == {"writer": ["c-a", "c-b"], "theirs": ["c-other"],
                                   "admin": None, "reader": None, "open": None}
        downgrade(settings, "0002")
        assert _limits(engine)["writer"] == ["a", "b"]
    finally:
        engine.dispose()


def test_limits_become_ids_on_sqlite(tmp_path):
    _check(f"sqlite:///{tmp_path / 'm.db'}")


@pytest.mark.postgres
def test_limits_become_ids_on_postgres():
    _require_postgres()
    with FreshDatabase("headroom_m4") as db:
        _check(db.url)
