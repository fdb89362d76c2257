"""The log reads back exactly what the engines wrote (issue #12, defect 1a).

Postgres' jsonb printed floats of 1e16 and more as integers, so a process that rebuilt an
engine from the log saw its own answers "change" and refused with 500 state_divergence for
ever. These tests restart the app (a fresh engine cache) after answers carrying such floats.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select, update

from app.main import create_app
from app.policies.thor import make_stream
from app.service.engines import DELIVERY_KEYS
from app.store.models import Event
from tests.conftest import admin_client, make_settings

RESOURCES = [{"name": "cpu", "cost": 1.0, "epsilon": 0.05}]
# Floats whose shortest decimal is not their exact binary value once printed as an integer.
HUGE_STREAMS = {
    # THOR in the paper's setting (a known cap) at a scale where every number is >= 1e16.
    "thor": {"caps": {"cpu": {"mean": 1.2345678901234567e17, "sigma": 3.3333333333333331e16}}},
    # VPA-style buckets starting at 3.3e16: the reservation is 1.15 × a bucket end.
    "percentile": {"first_bucket": 3.3333333333333331e16, "max_value": 1e18},
}


def _answer(response: dict) -> dict:
    return {k: v for k, v in response.items() if k not in DELIVERY_KEYS}


def _observe(client, rid: str, period: int, cpu: float) -> dict:
    r = client.post(f"/v1/reservations/{rid}/observations",
                    json={"event_id": f"p{period}", "period": period, "demand": {"cpu": cpu}})
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("kind", sorted(HUGE_STREAMS))
def test_huge_floats_in_answers_survive_a_restart(db_url, kind):
    params = HUGE_STREAMS[kind]
    twin = make_stream(kind, RESOURCES, params)  # a process that never restarted
    settings = make_settings(db_url)
    with admin_client(create_app(settings, configure_logs=False)) as c:
        rid = c.post("/v1/reservations", json={
            "name": "huge", "resources": RESOURCES,
            "policy": {"kind": kind, "params": params}}).json()["id"]
        first = _observe(c, rid, 0, 5.0)
    assert _answer(first) == twin.observe(0, {"cpu": 5.0}).to_dict()
    assert first["next_reservation"]["cpu"] > 1e16
    with admin_client(create_app(settings, configure_logs=False)) as fresh:
        second = _observe(fresh, rid, 1, 7.0)
        assert _answer(second) == twin.observe(1, {"cpu": 7.0}).to_dict()
        # A retry is answered from the stored response: the same floats, not integers.
        again = fresh.post(f"/v1/reservations/{rid}/observations",
                           json={"event_id": "p0", "period": 0, "demand": {"cpu": 5.0}})
        assert _answer(again.json()) == _answer(first)
        assert type(again.json()["next_reservation"]["cpu"]) is float


def _as_jsonb_printed_it(value):
    """What jsonb made of a logged answer: every float >= 1e16 became an exact integer."""
    if isinstance(value, dict):
        return {k: _as_jsonb_printed_it(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_jsonb_printed_it(v) for v in value]
    if isinstance(value, float) and abs(value) >= 1e16:
        return int(Decimal(repr(value)))
    return value


def test_logs_written_under_jsonb_still_replay(db_url):
    """Rows logged before migration 0003 keep jsonb's integers; replay compares by value."""
    settings = make_settings(db_url)
    params = HUGE_STREAMS["thor"]
    with admin_client(create_app(settings, configure_logs=False)) as c:
        rid = c.post("/v1/reservations", json={
            "name": "old", "resources": RESOURCES,
            "policy": {"kind": "thor", "params": params}}).json()["id"]
        _observe(c, rid, 0, 5.0)
    app = create_app(settings, configure_logs=False)
    with app.state.ctx.sessions() as s, s.begin():
        row = s.scalars(select(Event).where(Event.cluster_id == rid, Event.seq == 1)).one()
        old = _as_jsonb_printed_it(row.response)
        assert old != row.response  # the rewrite really changed what is stored
        s.execute(update(Event).where(Event.cluster_id == rid, Event.seq == 1)
                  .values(response=old))
    twin = make_stream("thor", RESOURCES, params)
    twin.observe(0, {"cpu": 5.0})
    with admin_client(app) as c:
        assert _answer(_observe(c, rid, 1, 7.0)) == twin.observe(1, {"cpu": 7.0}).to_dict()
