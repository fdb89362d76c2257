"""The lean event path (app/api/lean.py) answers exactly as FastAPI's full path does.

The same requests, well formed and not, go to two apps on two fresh databases: one as served,
one whose lean path is switched off, so that every request takes FastAPI's routing and
dependencies. Status, body and headers must agree (ids normalised: each database makes its
own), and the well-formed requests must have gone the lean way while the others fell back.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.api import lean as lean_module
from app.main import create_app
from app.store.migrate import upgrade
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
JSON = {"Content-Type": "application/json"}


def _clusters(client) -> dict[str, str]:
    def made(path: str, body: dict[str, Any]) -> str:
        r = client.post(path, json=body)
        assert r.status_code == 201, r.text
        return r.json()["id"]

    return {
        "place": made("/v1/clusters", cluster_spec("place", servers=1)),
        "queue": made("/v1/clusters", cluster_spec("queue", policy={"kind": "rms",
                                                                    "clock": "client"})),
        "moment": made("/v1/clusters", {"name": "moment", "capacity_cores": 2000, "sla": 0.001,
                                        "policy": {"kind": "second_moment"}}),
        "stream": made("/v1/reservations", {"name": "stream", "policy": {"kind": "thor"},
                                            "resources": [{"name": "cpu", "cost": 1,
                                                           "epsilon": 0.1}]}),
    }


def _requests(ids: dict[str, str]) -> list[tuple[str, str, Any, dict[str, str]]]:
    """(path, raw body, headers) in order; ``{place}`` etc. name the clusters."""
    place = f"/v1/clusters/{ids['place']}"
    queue = f"/v1/clusters/{ids['queue']}"
    moment = f"/v1/clusters/{ids['moment']}/deployments"
    stream = f"/v1/reservations/{ids['stream']}/observations"
    small = '{"event_id": "a1", "job_id": "j1", "job_type": "small"}'
    return [
        (f"{place}/arrivals", small, JSON),
        (f"{place}/arrivals", small, JSON),  # a replay
        (f"{place}/arrivals", '{"event_id": "a1", "job_id": "j9", "job_type": "small"}', JSON),
        (f"{place}/arrivals", '{"event_id": "a2", "job_id": "j2", "job_type": "large"}', JSON),
        (f"{place}/arrivals", '{"job_id": "j3", "job_type": "small"}',
         {**JSON, "Idempotency-Key": "h3"}),
        (f"{place}/arrivals", '{"event_id": "a4", "job_id": "j4", "job_type": "small"}',
         {**JSON, "Idempotency-Key": "other"}),  # disagrees with the body
        (f"{place}/arrivals", '{"job_id": "j5", "job_type": "small"}', JSON),  # no event id
        (f"{place}/arrivals", '{"job_id": "j6", "job_type": "small"}',
         {**JSON, "Idempotency-Key": "has space"}),  # outside the header's pattern
        (f"{place}/arrivals", '{"event_id": "a7", "job_id": "j7", "job_type": "huge"}', JSON),
        (f"{place}/arrivals", '{"event_id": "a8", "job_id": "j8"}', JSON),  # no job type
        (f"{place}/arrivals", '{"event_id": "a9", "job_id": "j9", "job_type": "small", '
                              '"extra": 1}', JSON),
        (f"{place}/arrivals", '{"event_id": "a10", "job_id": "j10", "job_type": "small"}',
         {"Content-Type": "text/plain"}),
        (f"{place}/arrivals", '{"event_id": "a11", "job_id": "j11", "job_type": "small"}', {}),
        (f"{place}/arrivals", '{"event_id": "a12", "job_id": "j12", "job_type": "small", '
                              '"dry_run": true}', JSON),
        (f"{place}/arrivals", '[1, 2]', JSON),
        (f"{place}/arrivals", '{"event_id": "a13", "job_id": "j13", "job_type": "small"}',
         {**JSON, "Authorization": "Bearer hr_not_a_key"}),
        (f"{place}/arrivals", '{"event_id": "a14", "job_id": "j14", "job_type": "small"}',
         {**JSON, "Authorization": "Basic abc"}),
        ("/v1/clusters/no-such-cluster/arrivals",
         '{"event_id": "a15", "job_id": "j15", "job_type": "small"}', JSON),
        (f"/v1/clusters/{ids['stream']}/arrivals",  # a stream is no placement cluster
         '{"event_id": "a16", "job_id": "j16", "job_type": "small"}', JSON),
        (f"{place}/departures", '{"event_id": "d1", "job_id": "j1"}', JSON),
        (f"{place}/departures", '{"event_id": "d2", "job_id": "nobody"}', JSON),
        (f"{place}/departures", '{"event_id": "d3", "job_id": "j2", "at": -1}', JSON),
        (f"{queue}/arrivals", '{"event_id": "q1", "job_id": "q1", "job_type": "small", '
                              '"at": 0}', JSON),
        (f"{queue}/arrivals", '{"event_id": "q2", "job_id": "q2", "job_type": "small"}',
         JSON),  # a client clock needs at
        (f"{queue}/departures", '{"event_id": "q3", "job_id": "q1", "at": 1}', JSON),
        (moment, '{"event_id": "m1", "deployment_id": "d1", "cores": 4, "at": 1}', JSON),
        (moment, '{"event_id": "m2", "deployment_id": "d2", "cores": 4, "at": 1, '
                 '"dry_run": true}', JSON),
        (f"{moment}/d1/scale-outs", '{"event_id": "m3", "cores": 2, "at": 2}', JSON),
        (f"{moment}/d1/scale-ins", '{"event_id": "m4", "cores": 1, "at": 3}', JSON),
        (f"{moment}/nobody/scale-ins", '{"event_id": "m5", "cores": 1, "at": 3}', JSON),
        (f"{moment}/d1/scale-outs", '{"event_id": "m6", "cores": -2, "at": 4}', JSON),
        (stream, '{"event_id": "p1", "period": 1, "demand": {"cpu": 3}}', JSON),
        (stream, '{"event_id": "p2", "period": 2, "demand": {"cpu": 4.5}}', JSON),
        (stream, '{"event_id": "p3", "period": 2, "demand": {"cpu": 1}}', JSON),
        (stream, '{"event_id": "p4", "period": 3, "demand": {"gpu": 1}}', JSON),
    ]


def _answers(url: str, lean_on: bool, monkeypatch) -> tuple[list[Any], list[bool]]:
    taken: list[bool] = []
    arguments = lean_module._arguments

    def spy(*args: Any) -> Any:
        found = arguments(*args)
        taken.append(found is not None)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(lean_module, "_arguments", spy)
        if not lean_on:
            patch.setattr(lean_module.LeanPath, "_routes", lambda self: [])
        app = create_app(make_settings(url), configure_logs=False)
        with admin_client(app) as client:
            ids = _clusters(client)
            names = {v: k for k, v in ids.items()}
            answers = []
            for path, body, headers in _requests(ids):
                r = client.post(path, content=body, headers=headers)
                text = UUID.sub(lambda m: f"<{names.get(m[0], 'id')}>", r.text)
                kept = {k: v for k, v in r.headers.items()
                        if k not in ("x-request-id", "date", "content-length")}
                answers.append((path.rsplit("/", 1)[-1], r.status_code, text, kept))
    return answers, taken


@pytest.fixture
def two_databases(tmp_path) -> tuple[str, str]:
    urls = []
    for name in ("lean", "full"):
        url = f"sqlite:///{tmp_path / name}.db"
        upgrade(make_settings(url))
        urls.append(url)
    return urls[0], urls[1]


def test_the_lean_path_answers_as_the_full_path(two_databases, monkeypatch):
    lean_url, full_url = two_databases
    lean, taken = _answers(lean_url, True, monkeypatch)
    full, not_taken = _answers(full_url, False, monkeypatch)
    assert not any(not_taken) and not not_taken  # switched off: never consulted
    for one, other in zip(lean, full, strict=True):
        assert one == other
    statuses = {status for _, status, _, _ in lean}
    assert {200, 202, 401, 404, 409, 422} <= statuses  # the corpus reaches every kind
    # The well-formed requests went the lean way, the rest to FastAPI: the corpus holds both.
    assert sum(taken) >= 20 and not all(taken)
