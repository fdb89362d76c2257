"""Cross-stream group commit (issue #19): the single events one process has queued for several
clusters are decided in one transaction, rows locked in id order; each is answered after that
commit; a crashing event or a deleted cluster fails only its own events."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import select

from app.main import create_app
from app.policies.placement import PlacementAdapter
from app.service import events
from app.store.models import Event
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec

POISON = "poison"


def _arrival(i: int | str) -> dict[str, Any]:
    return {"kind": "arrival", "event_id": f"e{i}", "job_id": f"j{i}", "job_type": "small"}


def make_app(url: str, **overrides):
    return create_app(make_settings(url, group_across_clusters=True, **overrides),
                      configure_logs=False)


def _clusters(app, n: int) -> list[str]:
    with admin_client(app) as c:
        return [c.post("/v1/clusters", json=cluster_spec(servers=3)).json()["id"]
                for _ in range(n)]


def _submit_all_at_once(ctx, sent: list[tuple[str, dict[str, Any]]]) -> dict[int, Any]:
    """Every event queued while the leader's place is taken, then all released together."""
    answers: dict[int, Any] = {}

    def post(k: int) -> None:
        cid, event = sent[k]
        try:
            answers[k] = events.submit_event(ctx, cid, event)
        except Exception as exc:  # noqa: BLE001 - an expected failure is an answer too
            answers[k] = exc

    threads = [threading.Thread(target=post, args=(k,)) for k in range(len(sent))]
    deadline = time.monotonic() + 60
    with ctx.groups.leading(0, lambda: False):  # a leader's turn that decides nothing
        for k, t in enumerate(threads):
            t.start()
            while sum(map(len, ctx.groups._queues.values())) <= k:  # keep the sending order
                assert time.monotonic() < deadline
                time.sleep(0.001)
    for t in threads:
        t.join(timeout=60)
    return answers


def _count_transactions(monkeypatch) -> list[list[str]]:
    seen: list[list[str]] = []
    real = events._decide_in_transaction

    def counting(ctx, groups, *args):
        seen.append(sorted(groups))
        return real(ctx, groups, *args)

    monkeypatch.setattr(events, "_decide_in_transaction", counting)
    return seen


def test_queued_events_of_several_clusters_share_one_transaction(db_url, monkeypatch):
    app = make_app(db_url)
    ids = _clusters(app, 5)
    transactions = _count_transactions(monkeypatch)
    sent = [(cid, _arrival(f"{n}-{i}")) for i in range(3) for n, cid in enumerate(ids)]
    answers = _submit_all_at_once(app.state.ctx, sent)
    assert transactions == [sorted(ids)]  # one transaction, rows in id order
    for k, (cid, _) in enumerate(sent):
        assert answers[k]["decision"] == "placed", answers[k]
    # Each cluster's events got consecutive seqs of its own log.
    for cid in ids:
        seqs = sorted(a["event_seq"] for k, a in answers.items() if sent[k][0] == cid)
        assert seqs == [1, 2, 3]
    with app.state.ctx.sessions() as s:
        logged = s.execute(select(Event.cluster_id, Event.seq)).all()
    assert sorted(logged) == sorted((cid, n) for cid in ids for n in (1, 2, 3))


def test_a_crash_or_a_deleted_cluster_fails_only_its_own_events(db_url, monkeypatch):
    real_apply = PlacementAdapter.apply

    def apply(self, event):
        out = real_apply(self, event)  # half-done, then a bug
        if event.get("job_id") == POISON:
            raise OverflowError("engine bug")
        return out

    monkeypatch.setattr(PlacementAdapter, "apply", apply)
    app = make_app(db_url)
    a, b, gone = _clusters(app, 3)
    with admin_client(app) as c:
        assert c.delete(f"/v1/clusters/{gone}").status_code == 204
    sent = [(a, _arrival(0)), (b, _arrival(0)), (a, {**_arrival(POISON), "job_id": POISON}),
            (gone, _arrival(0)), (b, _arrival(1)), (a, _arrival(1))]
    answers = _submit_all_at_once(app.state.ctx, sent)
    assert isinstance(answers[2], OverflowError)
    assert getattr(answers[3], "code", None) == "cluster_not_found"
    assert [answers[k]["event_seq"] for k in (0, 5)] == [1, 2]  # a: as if never poisoned
    assert [answers[k]["event_seq"] for k in (1, 4)] == [1, 2]
    assert all(answers[k]["decision"] == "placed" for k in (0, 1, 4, 5))
    with app.state.ctx.sessions() as s:
        logged = s.execute(select(Event.cluster_id, Event.event_id)).all()
    assert sorted(logged) == sorted([(a, "e0"), (a, "e1"), (b, "e0"), (b, "e1")])


@pytest.mark.postgres
def test_two_processes_on_overlapping_clusters_never_deadlock(postgres_url):
    """Two apps (as two processes would) submit concurrently to overlapping clusters: their
    multi-row transactions lock in one order, so none fails (Postgres would abort one side of
    a deadlock with an error) and every cluster's log is gap-free."""
    apps = [make_app(postgres_url, lock_timeout_ms=30_000) for _ in range(2)]
    ids = _clusters(apps[0], 4)
    errors: list[BaseException] = []
    answered = [0]
    lock = threading.Lock()

    def client(n: int) -> None:
        ctx = apps[n % 2].state.ctx
        for i in range(12):
            cid = ids[(n + i) % len(ids)]
            try:
                events.submit_event(ctx, cid, {"kind": "departure", "event_id": f"d{n}-{i}",
                                               "job_id": f"none-{n}-{i}"})
            except Exception as exc:  # noqa: BLE001
                if getattr(exc, "code", None) != "unknown_job":  # refused, as it should be
                    errors.append(exc)
            try:
                events.submit_event(ctx, cid, _arrival(f"{n}-{i}"))
                with lock:
                    answered[0] += 1
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert answered[0] == 8 * 12
    with apps[0].state.ctx.sessions() as s:
        for cid in ids:
            seqs = s.scalars(select(Event.seq).where(Event.cluster_id == cid)
                             .order_by(Event.seq)).all()
            assert seqs == list(range(1, len(seqs) + 1))
