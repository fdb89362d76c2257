"""The two reference services of the ceiling benchmark (``app.bench.ceiling``), served by the
same stack as Headroom (uvicorn with httptools, FastAPI, pydantic; SQLAlchemy and psycopg on
Postgres for the second):

- ``fixed``: a POST that validates a small body and returns a fixed JSON answer, no database.
  What the HTTP stack alone costs: no service on this stack answers faster.
- ``naive``: the textbook durable decision, one transaction per request: lock the cluster row
  (``SELECT ... FOR UPDATE``), insert the log row, bump the version, commit. What a correct
  service without group commit, caches or batching costs.

Run as uvicorn factories (``--factory``); ``naive`` reads ``HEADROOM_DATABASE_URL`` and keeps
its two tables (``naive_clusters``, ``naive_events``) to itself.
"""

from __future__ import annotations

import json
import os
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict
from sqlalchemy import create_engine, text


class Event(BaseModel):
    """An arrival (with ``job_type``) or a departure, as Headroom's routes take them."""

    model_config = ConfigDict(extra="forbid")
    event_id: str
    job_id: str
    job_type: str | None = None


ANSWER = {"decision": "placed", "server_id": "s-0", "reason": "fits", "replayed": False,
          "dry_run": False}

NAIVE_SCHEMA = (
    ("CREATE TABLE IF NOT EXISTS naive_clusters (id varchar(36) PRIMARY KEY, version bigint "
     "NOT NULL)"),
    ("CREATE TABLE IF NOT EXISTS naive_events (cluster_id varchar(36) NOT NULL, seq bigint NOT "
     "NULL, event_id varchar(200) NOT NULL, request json NOT NULL, response json NOT NULL, "
     "PRIMARY KEY (cluster_id, seq))"),
)


def fixed() -> FastAPI:
    app = FastAPI()

    async def decide(cluster_id: str, body: Event) -> dict[str, Any]:
        return {**ANSWER, "event_seq": 1}

    _routes(app, decide)
    return app


def _routes(app: FastAPI, endpoint: Any) -> None:
    for path in ("arrivals", "departures"):
        app.add_api_route(f"/v1/clusters/{{cluster_id}}/{path}", endpoint, methods=["POST"])


def naive() -> FastAPI:
    db = create_engine(os.environ["HEADROOM_DATABASE_URL"], pool_size=20, max_overflow=10)
    app = FastAPI()

    def decide(cluster_id: str, body: Event) -> dict[str, Any]:
        with db.begin() as conn:
            version = conn.execute(text(
                "SELECT version FROM naive_clusters WHERE id = :c FOR UPDATE"),
                {"c": cluster_id}).scalar_one()
            seq = version + 1
            answer = {**ANSWER, "event_seq": seq}
            conn.execute(text(
                "INSERT INTO naive_events (cluster_id, seq, event_id, request, response) "
                "VALUES (:c, :s, :e, :q, :r)"),
                {"c": cluster_id, "s": seq, "e": body.event_id,
                 "q": json.dumps(body.model_dump()), "r": json.dumps(answer)})
            conn.execute(text("UPDATE naive_clusters SET version = :s WHERE id = :c"),
                         {"s": seq, "c": cluster_id})
        return answer

    _routes(app, decide)
    return app


def prepare_naive(database_url: str, cluster_id: str) -> None:
    """Create the naive service's tables (if missing) and one cluster row."""
    db = create_engine(database_url)
    try:
        with db.begin() as conn:
            for statement in NAIVE_SCHEMA:
                conn.execute(text(statement))
            conn.execute(text("INSERT INTO naive_clusters (id, version) VALUES (:c, 0)"),
                         {"c": cluster_id})
    finally:
        db.dispose()
