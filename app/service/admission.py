"""The validating admission webhook (AdmissionReview v1) on a moment-admission cluster.

A Deployment is one Headroom deployment (its id: the Deployment's UID) whose cores are
replicas × the pod template's cpu requests, rounded up. CREATE asks to admit it; an UPDATE of
``deployments`` or ``deployments/scale`` that changes replicas is a scale-out (granted or
denied) or a scale-in; DELETE shuts it down. A scale-out the engine answers with ``migrate``
(the Deployment's own moments expect it to need half the cluster) carries a warning that
says so. ``dryRun`` decides without committing. Event ids are the review's ``request.uid``;
time is hours since the Unix epoch (never decreasing per cluster: a moment cluster the
webhook drives takes no other clock).

Bounded time: the decision runs on a worker thread and the webhook waits for it at most the
deadline. Past it, the answer is a denial (504) and, if the decision still lands later and
admitted or granted something, it is undone with a shutdown or scale-in, so Headroom never
counts cores Kubernetes was told it may not have.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from app.errors import HeadroomError
from app.kubernetes.resources import BadQuantity, cores_of, pod_requests
from app.service.context import ServiceContext
from app.service.events import dry_run, read_engine, submit_event
from app.store.models import Event

log = logging.getLogger("headroom.kubernetes")

_WORKERS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="admission")


@dataclass
class Outcome:
    allowed: bool
    code: int
    message: str
    warnings: list[str] = field(default_factory=list)
    undo: dict[str, Any] | None = None  # the event that takes a committed grant back


def migrate_warning(label: str, migrate: dict[str, Any]) -> str:
    """The engine's "migrate" answer as a warning kubectl prints (allowed or not, the decision
    is the scale-out's): its own moments expect it to need half the cluster, or the cluster
    is expected to outgrow itself and it is the deployment expected to grow largest."""
    text = (f"headroom: migrate {label}: expected to need {migrate['expected_share']:.0%} "
            f"of this cluster ({migrate['expected_peak_cores']:.0f} cores)")
    if migrate["reason"] == "cluster_overflow":
        text += (f", the largest of its deployments, which together are expected to need "
                 f"{migrate['expected_cluster_share']:.0%} of it")
        if migrate.get("overflow_line_share") is not None:
            text += (f" ({migrate['overflow_line_share']:.0%} at {migrate['overflow_sd']:g} "
                     f"standard deviation{'' if migrate['overflow_sd'] == 1 else 's'} above)")
    return text


class Refused(Exception):
    """The object cannot be judged (no cpu requests, a bad quantity): allowed false, 4xx."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _object_at(obj: Mapping[str, Any] | None, path: str) -> Mapping[str, Any]:
    """The object at a dotted path ({} where absent); 400 where something else is."""
    current: Any = obj or {}
    for key in path.split("."):
        if not isinstance(current, Mapping):
            raise Refused(400, f"headroom: {path} is not an object")
        current = current.get(key) or {}
    if not isinstance(current, Mapping):
        raise Refused(400, f"headroom: {path} is not an object")
    return current


def _replicas(obj: Mapping[str, Any] | None) -> int:
    spec = _object_at(obj, "spec")
    value = spec.get("replicas", 1)  # the API server defaults a Deployment's replicas to 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refused(400, f"spec.replicas {value!r} is not a non-negative integer")
    return value


def _cpu_per_pod(deployment: Mapping[str, Any]) -> float:
    template = _object_at(deployment, "spec.template.spec")
    try:
        cpu = pod_requests(template).get("cpu", 0.0)
    except BadQuantity as exc:
        raise Refused(400, f"spec.template.spec: {exc}") from None
    if cpu <= 0:
        raise Refused(422, "headroom: the pod template requests no cpu, so its cores cannot "
                           "be counted; set resources.requests.cpu")
    return cpu


def _deployment_id(req: Mapping[str, Any]) -> str:
    for obj in (req.get("object"), req.get("oldObject")):
        meta = (obj or {}).get("metadata")
        uid = meta.get("uid") if isinstance(meta, Mapping) else None
        if isinstance(uid, str) and uid and "/" not in uid and not uid.startswith("."):
            return uid
    return f"{req.get('namespace')}.{req.get('name')}"


def _hours() -> float:
    return time.time() / 3600.0


class _Decider:
    """One review's decision against the cluster (runs on a worker thread)."""

    def __init__(self, ctx: ServiceContext, cluster_id: str, req: Mapping[str, Any]):
        self.ctx, self.cluster_id, self.req = ctx, cluster_id, req
        self.uid = str(req["uid"])
        self.dry = bool(req.get("dryRun"))
        self.did = _deployment_id(req)
        self.label = f"{req.get('namespace')}/{req.get('name')}"

    def _read(self, reader: Callable[[Any], Any]) -> Any:
        return read_engine(self.ctx, self.cluster_id, lambda engine, _c: reader(engine.engine))

    def _submit(self, event: dict[str, Any]) -> dict[str, Any]:
        """Commit with the epoch-hours clock; a clock behind the engine's (another process's
        clock ahead) takes the engine's time instead, once."""
        at = _hours()
        for attempt in (0, 1):
            try:
                return submit_event(self.ctx, self.cluster_id, {**event, "at": at})
            except HeadroomError as exc:
                if exc.code == "idempotency_key_reused":
                    # The same review again: its time differs, so its hash does; the review
                    # uid is the identity, and the logged answer is the answer.
                    logged = self._logged(event["event_id"])
                    if logged is not None:
                        return logged
                if exc.code != "time_went_backwards" or attempt:
                    raise
                at = max(at, self._read(lambda e: e.now))
        raise AssertionError("unreachable")

    def _logged(self, event_id: str) -> dict[str, Any] | None:
        with self.ctx.db.connect() as conn:
            row = conn.execute(select(Event.seq, Event.response).where(
                Event.cluster_id == self.cluster_id, Event.event_id == event_id)).first()
        if row is None:
            return None
        return {**row.response, "event_seq": row.seq, "replayed": True}

    def _current(self) -> dict[str, Any] | None:
        def view(engine: Any) -> dict[str, Any] | None:
            d = engine.deployments.get(self.did)
            return {"cores": d.cores, "alive": d.alive} if d is not None else None
        return self._read(view)

    def decide(self) -> Outcome:
        op, sub = self.req.get("operation"), self.req.get("subResource") or ""
        if op == "CREATE" and sub == "":
            obj = self.req.get("object") or {}
            return self._grow(cores_of({"cpu": _cpu_per_pod(obj)}, _replicas(obj)), None)
        if op == "UPDATE" and sub in ("", "scale"):
            return self._rescale(sub)
        if op == "DELETE" and sub == "":
            return self._shutdown()
        return Outcome(True, 200, f"headroom: {op} of deployments/{sub or ''} is not governed")

    def _rescale(self, sub: str) -> Outcome:
        old, new = _replicas(self.req.get("oldObject")), _replicas(self.req.get("object"))
        if old == new:
            return Outcome(True, 200, "headroom: replicas unchanged")
        current = self._current()
        alive = current is not None and current["alive"]
        if sub == "":
            per_pod = _cpu_per_pod(self.req.get("object") or {})
            target = cores_of({"cpu": per_pod}, new)
            have = current["cores"] if alive else 0
        elif alive and old > 0:
            # A Scale carries no pod template: cores per replica are what Headroom holds for
            # the deployment over its replicas before the change.
            have = current["cores"]
            target = math.ceil(round(have * new / old, 9))
        else:
            return Outcome(True, 200, "headroom: scale of a deployment Headroom holds no cores "
                                      "for; not counted",
                           ["headroom does not track this deployment's cores"])
        if target > have:
            return self._grow(target - have, have if alive else None)
        if target < have:
            return self._shrink(have - target)
        return Outcome(True, 200, f"headroom: {target} cores either way")

    def _grow(self, cores: int, have: int | None) -> Outcome:
        if cores <= 0:
            return Outcome(True, 200, "headroom: 0 replicas, nothing to admit yet",
                           ["headroom admits this deployment when it first scales out"])
        if have is None:  # new (or dead, or never counted): an admission
            event = {"kind": "deployment", "deployment_id": self.did, "cores": cores,
                     "category": None, "prior": None}
            if self.dry:
                answer = dry_run(self.ctx, self.cluster_id, {**event, "at": _hours()})
            else:
                answer = self._submit({**event, "event_id": self.uid})
            ok = answer["decision"] == "admitted"
            details = ", ".join(f"{k}={v}" for k, v in answer["details"].items())
            msg = (f"headroom: {answer['decision']} {self.label} with {cores} cores: "
                   f"{answer['reason']} ({details})")
            undo = {"kind": "shutdown", "deployment_id": self.did} if ok else None
            return Outcome(ok, 200 if ok else 403, msg, undo=undo)
        if self.dry:
            state = self._read(lambda e: (e.active, e.capacity))
            ok = state[0] + cores <= state[1]
            answer = {"decision": "granted" if ok else "denied", "active_cores": state[0]}
        else:
            answer = self._submit({"kind": "scale_out", "deployment_id": self.did,
                                   "cores": cores, "event_id": self.uid})
            ok = answer["decision"] == "granted"
        msg = (f"headroom: scale-out of {self.label} by {cores} cores {answer['decision']} "
               f"(active cores {answer['active_cores']}"
               + (f", scale-out failure rate {answer['sla_failure_rate']:.6g})"
                  if "sla_failure_rate" in answer else ")"))
        migrate = answer.get("migrate")
        warnings = [] if not migrate else [migrate_warning(self.label, migrate)]
        undo = {"kind": "scale_in", "deployment_id": self.did, "cores": cores} if ok else None
        return Outcome(ok, 200 if ok else 403, msg, warnings, undo=undo)

    def _shrink(self, cores: int) -> Outcome:
        if self.dry:
            return Outcome(True, 200, f"headroom: scale-in of {self.label} by {cores} cores")
        answer = self._submit({"kind": "scale_in", "deployment_id": self.did, "cores": cores,
                               "event_id": self.uid})
        return Outcome(True, 200, f"headroom: scale-in of {self.label} by {cores} cores "
                                  f"(active cores {answer['active_cores']})")

    def _shutdown(self) -> Outcome:
        current = self._current()
        if self.dry or current is None or not current["alive"]:
            return Outcome(True, 200, f"headroom: {self.label} holds no cores")
        answer = self._submit({"kind": "shutdown", "deployment_id": self.did,
                               "event_id": self.uid})
        return Outcome(True, 200, f"headroom: {self.label} shut down "
                                  f"(active cores {answer['active_cores']})")

    def undo(self, event: dict[str, Any]) -> None:
        try:
            self._submit({**event, "event_id": f"{self.uid}-undo"})
        except Exception:
            log.exception("could not undo a late admission decision",
                          extra={"cluster_id": self.cluster_id, "uid": self.uid})


def _run(decider: _Decider) -> Outcome:
    try:
        return decider.decide()
    except Refused as exc:
        return Outcome(False, exc.code, exc.message)
    except HeadroomError as exc:
        return Outcome(False, exc.status, f"headroom: {exc.code}: {exc}")
    except Exception:  # a bug: still a review the API server can read, and a log line
        log.exception("admission review crashed", extra={"cluster_id": decider.cluster_id})
        return Outcome(False, 500, "headroom: internal error; see the service's log")


def review(ctx: ServiceContext, cluster_id: str, req: Mapping[str, Any],
           deadline: float) -> Outcome:
    """The outcome of one AdmissionRequest, within ``deadline`` seconds."""
    decider = _Decider(ctx, cluster_id, req)
    future: Future[Outcome] = _WORKERS.submit(_run, decider)
    try:
        return future.result(timeout=deadline)
    except FutureTimeout:
        if future.cancel():  # still waiting for a worker: nothing was or will be decided
            return _too_late(deadline)

        def late(done: Future[Outcome]) -> None:
            outcome = done.result()
            if outcome.undo is not None and not decider.dry:
                decider.undo(outcome.undo)
        future.add_done_callback(late)
        return _too_late(deadline)


def _too_late(deadline: float) -> Outcome:
    return Outcome(False, 504, f"headroom: no decision within {deadline:g} s (the cluster is "
                               "busy); denied, and nothing is counted; retry")
