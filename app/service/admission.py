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
import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import select

from app.errors import HeadroomError
from app.ids import SEGMENT_ID_PATTERN
from app.kubernetes.objects import Deployment
from app.kubernetes.resources import cores_of
from app.policies.capabilities import HasDeployments
from app.policies.moments.family import MAX_CORES
from app.service.context import ServiceContext
from app.service.events import dry_run, read_adapter, submit_event
from app.store.models import Event

log = logging.getLogger("headroom.kubernetes")
T = TypeVar("T")

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


@dataclass(frozen=True)
class Review:
    """An AdmissionRequest of ``apps/deployments``, validated (app/api/schemas/kubernetes.py):
    every string is of a bounded printable alphabet, every number in range."""

    uid: str
    operation: str
    sub_resource: str
    namespace: str
    name: str
    object: Deployment | None
    old_object: Deployment | None
    dry_run: bool


class Refused(Exception):
    """A valid Deployment that Headroom cannot count (no cpu requests, more cores than any
    moment cluster holds, no usable id): allowed false, a 4xx code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _hours() -> float:
    return time.time() / 3600.0


class _Decider:
    """One review's decision against the cluster (runs on a worker thread)."""

    def __init__(self, ctx: ServiceContext, cluster_id: str, review: Review):
        self.ctx, self.cluster_id, self.review = ctx, cluster_id, review
        self.uid, self.dry = review.uid, review.dry_run
        self.label = f"{review.namespace}/{review.name}"

    @property
    def did(self) -> str:
        """The Deployment's UID (a Scale carries it too), else ``<namespace>.<name>``, which
        must then obey the same id rule."""
        for obj in (self.review.object, self.review.old_object):
            if obj is not None and obj.metadata is not None and obj.metadata.uid is not None:
                return obj.metadata.uid
        fallback = f"{self.review.namespace}.{self.review.name}"
        if not (self.review.namespace and self.review.name) \
                or re.fullmatch(SEGMENT_ID_PATTERN, fallback) is None:
            raise Refused(400, f"headroom: the Deployment has no metadata.uid, and "
                               f"{self.label} makes no deployment id (<namespace>.<name>, "
                               f"at most 200 characters)")
        return fallback

    def _cores(self, obj: Deployment, replicas: int) -> int:
        cpu = obj.pod_spec().requests().get("cpu", 0)
        if cpu <= 0:
            raise Refused(422, "headroom: the pod template requests no cpu, so its cores cannot "
                               "be counted; set resources.requests.cpu")
        return self._bounded(cores_of(cpu, replicas))

    def _bounded(self, cores: int) -> int:
        if cores > MAX_CORES:
            raise Refused(422, f"headroom: {self.label} would hold {cores} cores, more than any "
                               f"moment cluster holds ({MAX_CORES})")
        return cores

    def _read(self, reader: Callable[[HasDeployments], T]) -> T:
        return read_adapter(self.ctx, self.cluster_id, lambda adapter, _c: reader(adapter),
                            HasDeployments)

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
                    logged = self._logged(event)
                    if logged is not None:
                        return logged
                if exc.code != "time_went_backwards" or attempt:
                    raise
                at = max(at, self._read(lambda a: a.now))
        raise AssertionError("unreachable")

    def _logged(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The logged answer to this review, if the event logged under its uid is this kind of
        event for this deployment; another (a uid used again for something else) is None, and
        stays the conflict it is."""
        with self.ctx.db.connect() as conn:
            row = conn.execute(select(Event.seq, Event.kind, Event.request, Event.response).where(
                Event.cluster_id == self.cluster_id,
                Event.event_id == event["event_id"])).first()
        if row is None or row.kind != event["kind"] \
                or row.request.get("deployment_id") != event["deployment_id"]:
            return None
        return {**row.response, "event_seq": row.seq, "replayed": True}

    def _current(self) -> dict[str, Any] | None:
        def view(adapter: HasDeployments) -> dict[str, Any] | None:
            held = adapter.deployment_cores(self.did)
            return None if held is None else {"cores": held[0], "alive": held[1]}
        return self._read(view)

    def decide(self) -> Outcome:
        op, sub = self.review.operation, self.review.sub_resource
        if op == "CREATE" and sub == "":
            obj = self.review.object or Deployment()
            return self._grow(self._cores(obj, obj.replicas(scale=False)), None)
        if op == "UPDATE" and sub in ("", "scale"):
            return self._rescale(scale=sub == "scale")
        if op == "DELETE" and sub == "":
            return self._shutdown()
        return Outcome(True, 200, f"headroom: {op} of deployments/{sub} is not governed")

    def _rescale(self, scale: bool) -> Outcome:
        obj = self.review.object or Deployment()
        old = (self.review.old_object or Deployment()).replicas(scale)
        new = obj.replicas(scale)
        if old == new:
            return Outcome(True, 200, "headroom: replicas unchanged")
        current = self._current()
        alive = current is not None and current["alive"]
        if not scale:
            target = self._cores(obj, new)
            have = current["cores"] if alive else 0
        elif alive and old > 0:
            # A Scale carries no pod template: cores per replica are what Headroom holds for
            # the deployment over its replicas before the change (rounded up, exactly).
            have = current["cores"]
            target = self._bounded(-(-have * new // old))
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
            # Where the cluster declares tenants, a Deployment runs for the tenant named like
            # its namespace (only then: a cluster without tenants logs what it always did).
            if self._read(lambda a: getattr(a, "quotas", None) is not None):
                event["tenant"] = self.review.namespace
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
            state = self._read(lambda a: a.capacity_use())
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
        if answer.get("reason"):  # quota_exceeded: whose quota, short of what
            quota = (answer.get("details") or {}).get("quota") or {}
            msg += (f": {answer['reason']} (tenant {quota.get('tenant')}, short "
                    f"{quota.get('short')})")
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


def review(ctx: ServiceContext, cluster_id: str, request: Review, deadline: float) -> Outcome:
    """The outcome of one AdmissionRequest, within ``deadline`` seconds."""
    decider = _Decider(ctx, cluster_id, request)
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
