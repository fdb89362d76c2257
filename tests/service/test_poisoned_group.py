"""Group commit isolates a crashing event: its neighbours are decided as if it had never been
sent (issue #12, defect 3)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select

from app.main import create_app
from app.service import events
from app.service.engines import DELIVERY_KEYS
from app.policies.placement import PlacementAdapter
from app.store.models import Event
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec

POISON = "poison"


def _arrival(i: int | str) -> dict:
    return {"kind": "arrival", "event_id": f"e{i}", "job_id": f"j{i}", "job_type": "small"}


class _Unsendable:
    """A decision whose answer has no JSON text: a number no JSON log can store, or a string
    no UTF-8 answer can carry."""

    def __init__(self, decision, value):
        self.decision, self.value = decision, value

    def to_dict(self):
        return {**self.decision.to_dict(), "details": {"score": self.value}}


@pytest.mark.parametrize("how", ["raises", "answers_infinity", "answers_lone_surrogate"])
def test_a_crashing_event_does_not_fail_its_group(db_url, monkeypatch, how):
    """The poisoned arrival mutates the engine (it places its job) and then raises a
    non-policy error, or answers a non-finite number (Postgres' json refuses the row at the
    group's insert, SQLite would store a log Postgres cannot hold) or a lone surrogate (the
    log stored it escaped, and the answer failed after the commit): a bug either way. It alone
    fails; the others queued in the same group, a replay of a logged event and the poisoned
    event's retry in the same group get their normal answers, the log holds exactly the others,
    and a fresh process rebuilds the same state."""
    real_apply = PlacementAdapter.apply
    expected = OverflowError if how == "raises" else ValueError

    def apply(self, event):
        out = real_apply(self, event)  # half-done: the engine has placed the job
        if event.get("job_id") == POISON:
            if how == "raises":
                raise OverflowError("engine bug")
            return _Unsendable(out, float("inf") if how == "answers_infinity" else "\udc80")
        return out

    monkeypatch.setattr(PlacementAdapter, "apply", apply)
    settings = make_settings(db_url)
    app = create_app(settings, configure_logs=False)
    ctx = app.state.ctx
    # 3 servers x 4 small slots: 12 fit, so one phantom placement would change a decision.
    with admin_client(app) as c:
        cid = c.post("/v1/clusters", json=cluster_spec(servers=3)).json()["id"]
        first = c.post(f"/v1/clusters/{cid}/arrivals", json={k: v for k, v in _arrival(0).items() if k != "kind"}).json()
    assert first["decision"] == "placed"

    sent = [_arrival(0)]  # a replay of the logged e0
    sent += [_arrival(i) for i in range(1, 12)]
    sent.insert(5, {**_arrival(POISON), "job_id": POISON})
    sent.insert(9, {**_arrival(POISON), "job_id": POISON})  # the client's retry, same group
    sent += [_arrival(i) for i in range(12, 14)]  # rejected: the cluster is full
    answers: dict[int, object] = {}

    def post(k: int) -> None:
        try:
            answers[k] = events.submit_event(ctx, cid, sent[k])
        except Exception as exc:  # noqa: BLE001 - the poisoned one's answer
            answers[k] = exc

    threads = [threading.Thread(target=post, args=(k,)) for k in range(len(sent))]
    # Hold the cluster so that every event queues and one transaction takes them all.
    with ctx.groups.exclusive(cid):
        for k, t in enumerate(threads):
            t.start()
            while len(ctx.groups._queues.get(cid, [])) <= k:  # keep the sending order
                time.sleep(0.001)
    for t in threads:
        t.join(timeout=30)

    poisoned = [k for k, e in enumerate(sent) if e["job_id"] == POISON]
    for k in poisoned:
        assert isinstance(answers[k], expected), answers[k]
    normal = [answers[k] for k in range(len(sent)) if k not in poisoned]
    assert all(isinstance(a, dict) for a in normal), normal
    assert normal[0]["replayed"] is True and normal[0]["event_seq"] == 1
    assert [a["decision"] for a in normal[1:]] == ["placed"] * 11 + ["rejected"] * 2
    assert [a["event_seq"] for a in normal[1:]] == list(range(2, 15))

    with ctx.sessions() as s:
        logged = s.execute(select(Event.event_id, Event.response).where(Event.cluster_id == cid)
                           .order_by(Event.seq)).all()
    assert [r.event_id for r in logged] == [f"e{i}" for i in range(14)]
    for a, row in zip(normal[1:], logged[1:]):
        assert {k: v for k, v in a.items() if k not in DELIVERY_KEYS} == \
            {k: v for k, v in row.response.items() if k not in DELIVERY_KEYS}

    with admin_client(app) as c:
        live = c.get(f"/v1/clusters/{cid}/state").json()
    fresh = create_app(settings, configure_logs=False)
    with admin_client(fresh) as c:
        assert c.get(f"/v1/clusters/{cid}/state").json() == live

@pytest.mark.parametrize("where", ["first", "last"])
def test_a_batch_with_a_crashing_event_fails_whole(db_url, monkeypatch, where):
    real_apply = PlacementAdapter.apply

    def apply(self, event):
        out = real_apply(self, event)
        if event.get("job_id") == POISON:
            raise OverflowError("engine bug")
        return out

    monkeypatch.setattr(PlacementAdapter, "apply", apply)
    app = create_app(make_settings(db_url), configure_logs=False)
    with admin_client(app) as c:
        cid = c.post("/v1/clusters", json=cluster_spec(servers=3)).json()["id"]
    batch = [_arrival(i) for i in range(3)]
    batch.insert(0 if where == "first" else 3, {**_arrival(POISON), "job_id": POISON})
    with pytest.raises(OverflowError):
        events.apply_batch(app.state.ctx, cid, batch)
    with app.state.ctx.sessions() as s:
        assert s.execute(select(Event.seq).where(Event.cluster_id == cid)).all() == []
