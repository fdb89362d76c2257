"""Small builders shared by the tests."""

from __future__ import annotations

import uuid
from functools import cache
from typing import Any

# A scrape token for tests that read the per-cluster series of /metrics (app/metrics.py:
# they exist only where HEADROOM_METRICS_TOKEN is set).
METRICS_TOKEN = "test-scrape-token-0123456789"


def scrape(client) -> str:
    """/metrics as Prometheus reads it from a server with METRICS_TOKEN."""
    r = client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert r.status_code == 200, r.text
    return r.text


def cluster_spec(name: str | None = None, policy: dict[str, Any] | None = None,
                 servers: int = 4, **overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": name or f"c-{uuid.uuid4().hex[:10]}",
        "dimensions": ["cpu", "memory"],
        "server_pools": [{"name": "rack", "count": servers,
                          "capacity": {"cpu": 8, "memory": 32}}],
        "job_types": [
            {"name": "small", "demand": {"cpu": 2, "memory": 8}, "reward": 2},
            {"name": "large", "demand": {"cpu": 8, "memory": 32}, "reward": 10},
        ],
        "policy": policy or {"kind": "first_fit"},
    }
    spec.update(overrides)
    return spec


def create_cluster(client, **kwargs: Any) -> dict[str, Any]:
    r = client.post("/v1/clusters", json=cluster_spec(**kwargs))
    assert r.status_code == 201, r.text
    return r.json()


def assert_problem(r, status: int, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json"), r.headers
    body = r.json()
    assert body["status"] == status
    assert body["type"].startswith("urn:headroom:problem:")
    assert body["title"] and body["detail"]
    if code is not None:
        assert body["code"] == code, body
    return body


@cache
def state_model() -> Any:
    """GET .../state's documented model (every cluster kind's, told apart by policy)."""
    from pydantic import TypeAdapter

    from app.families.registry import REGISTRY
    return TypeAdapter(REGISTRY.state_view("clusters"))


def check_state_view(view: dict[str, Any]) -> None:
    """An engine's describe(), as GET .../state shows it, is what the OpenAPI document says
    (app/api/schemas/state.py; unnamed fields are refused)."""
    state_model().validate_python({"cluster_id": "c", "version": 0, **view})
