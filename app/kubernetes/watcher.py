"""Pod departures for Headroom: watch pods end and post idempotent departures.

A pod leaves its server when it is deleted or reaches a terminal phase (Succeeded, Failed).
Each such pod of the Headroom scheduler (``spec.schedulerName``) is posted as a departure of
job ``<pod UID>`` with event id ``depart-<pod UID>``: a pod seen ending twice (phase change,
then deletion; or a watch that restarts and lists it again) is the same event, which Headroom
answers as a replay. A pod Headroom never placed (deleted before its bind, or not Headroom's)
answers 404, which is logged and skipped. A pod of a Kueue Workload (it carries the Kueue
controller's ``headroom.io/placement`` annotation) is skipped too: its job is the Workload's,
which departs when the Workload finishes (a Job's failed pod is replaced by one that takes the
same job).

The watcher posts departures only, which name no tenant: a job leaves its tenant's quota with
it, whoever it ran for.

On a queued cluster a pod deleted while its job still waits is the same departure: Headroom
withdraws the job from its queue (answer ``withdrawn``), so it never starts and never holds a
slot. A departure answered 409 ``job_not_running`` came after the job had already left
(finished or withdrawn): nothing to do.

    python -m app.kubernetes.watcher --url https://headroom:8000 --cluster <id> \\
        --scheduler-name headroom-scheduler      # the key in $HEADROOM_API_KEY

``departure_of`` and ``Watcher.handle`` take plain watch events (``{"type", "object"}`` with
the pod as a dict), so tests drive them with a fake stream; ``main`` feeds them from the API
server through the ``kubernetes`` client (``pod_events``): a list, then watches that each
resume where the last one ended; the pods are listed again only when the API server no longer
has that point.

A pod deleted while nobody watched (the watcher down, or the API server compacted past the
last version seen) leaves no event. So every list is a reconcile: before it, the watcher reads
the jobs Headroom holds (``GET .../jobs``), and after it, each job whose id is a pod UID
absent from the list departs. Jobs first, pods second: a job Headroom held before the list
began had its pod created before that too, so its absence means it is gone. Only ids shaped
like a pod UID are touched (the Kueue controller's ``<workload UID>.<pod set>.<i>`` are not), and
only when the watcher sees every namespace (``--namespace`` turns it off: a pod elsewhere is
not gone). ``--no-reconcile`` turns it off where other clients post UUID job ids to the same
cluster.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from app.kubernetes.pinning import PLAN

log = logging.getLogger("headroom.kubernetes.watcher")

TERMINAL_PHASES = ("Succeeded", "Failed")
WATCH_SECONDS = 300  # one watch request; the next resumes where it ended
LIST_PAGE = 500  # pods per list request (and jobs per GET .../jobs)
# A pod's metadata.uid: what the extender's bind uses as the job id.
POD_UID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Departure:
    uid: str
    pod: str  # namespace/name, for the log
    why: str


def departure_of(event: Mapping[str, Any], scheduler_name: str) -> Departure | None:
    """The departure a watch event means, if any."""
    pod = event.get("object") or {}
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    uid = meta.get("uid")
    if not uid or spec.get("schedulerName") != scheduler_name:
        return None
    if PLAN in (meta.get("annotations") or {}):  # a Workload's pod: it departs with it
        return None
    phase = (pod.get("status") or {}).get("phase")
    if event.get("type") == "DELETED":
        why = "deleted"
    elif event.get("type") in ("ADDED", "MODIFIED") and phase in TERMINAL_PHASES:
        why = phase.lower()
    else:
        return None
    return Departure(uid, f"{meta.get('namespace')}/{meta.get('name')}", why)


class Watcher:
    def __init__(self, client: httpx.Client, cluster_id: str, scheduler_name: str,
                 reconcile: bool = True):
        self.client, self.cluster_id, self.scheduler_name = client, cluster_id, scheduler_name
        self.reconcile = reconcile
        self.posted = 0
        self.reconciled = 0  # departures of jobs whose pod was gone when the pods were listed
        self._held: list[str] | None = None  # pod-UID job ids Headroom held before this list

    def held_pod_jobs(self) -> list[str]:
        """The ids of the jobs Headroom holds (running or waiting) that are pod UIDs."""
        held: list[str] = []
        params: dict[str, Any] = {"limit": LIST_PAGE}
        while True:
            page = self._jobs_page(params)
            held += [j["job_id"] for j in page["items"] if POD_UID.match(j["job_id"])]
            if page["next_cursor"] is None:
                return held
            params["cursor"] = page["next_cursor"]

    def _jobs_page(self, params: dict[str, Any]) -> dict[str, Any]:
        """One page of ``GET .../jobs``."""
        r = self._send("GET", "/jobs", "reading the jobs Headroom holds",
                       "could not read the jobs Headroom holds", params=params)
        r.raise_for_status()
        return r.json()

    def _send(self, method: str, route: str, what: str, failure: str,
              **kwargs: Any) -> httpx.Response:
        """The first answer to a request to this cluster's ``route`` that is not transient,
        retrying connection errors, 5xx and 429 with backoff; RuntimeError(failure) after
        six tries."""
        for attempt in range(6):
            try:
                r = self.client.request(method, f"/v1/clusters/{self.cluster_id}{route}",
                                        **kwargs)
            except httpx.TransportError as exc:
                log.warning("%s: not done yet: %s", what, exc)
            else:
                if r.status_code < 500 and r.status_code != 429:
                    return r
                log.warning("%s answered %s; retrying", what, r.status_code)
            time.sleep(min(0.2 * 2 ** attempt, 5))
        raise RuntimeError(failure)

    def post(self, d: Departure) -> dict[str, Any] | None:
        """Post one departure, retrying transient failures; None when Headroom does not know
        the job or it has left already."""
        r = self._send("POST", "/departures", f"departure of {d.pod}",
                       f"could not post the departure of {d.pod} ({d.uid})",
                       json={"event_id": f"depart-{d.uid}", "job_id": d.uid})
        if r.status_code == 200:
            self.posted += 1
            return r.json()
        if r.status_code == 409 and r.json().get("code") == "job_not_running":
            return None  # finished or withdrawn: its departure happened already
        if r.status_code == 404:
            log.info("pod %s (%s) is not a Headroom job; skipped", d.pod, d.uid)
            return None
        r.raise_for_status()  # a 2xx other than 200 is no answer Headroom gives a departure
        raise RuntimeError(f"the departure of {d.pod} ({d.uid}) answered {r.status_code}")

    def handle(self, events: Iterable[Mapping[str, Any]]) -> None:
        for event in events:
            if event.get("type") == "LISTING":  # pod_events is about to list the pods
                self._held = self.held_pod_jobs() if self.reconcile else None
                continue
            if event.get("type") == "LISTED":  # ... and has: object["uids"] are every pod's
                self._depart_the_gone(set(event["object"]["uids"]))
                continue
            d = departure_of(event, self.scheduler_name)
            if d is not None:
                self._depart(d)

    def _depart(self, d: Departure) -> None:
        answer = self.post(d)
        if answer is not None:
            log.info("departure of %s (%s): %s%s", d.pod, d.why,
                     "replayed" if answer.get("replayed") else "posted",
                     ", withdrawn from its queue" if answer.get("decision") == "withdrawn" else "")

    def _depart_the_gone(self, listed: set[str]) -> None:
        held, self._held = self._held, None
        gone = [uid for uid in held or () if uid not in listed]
        for uid in gone:
            self._depart(Departure(uid, "(no longer in the API server)", "gone unwatched"))
        self.reconciled += len(gone)
        if held is not None:
            log.info("reconciled: %d of Headroom's %d pod jobs had no pod left", len(gone),
                     len(held))


def pod_events(namespace: str | None, scheduler_name: str,
               watch_factory: Callable[[], Any] | None = None) -> Iterator[dict[str, Any]]:
    """Events from the API server, pods as plain dicts, for ever: the scheduler's pods listed
    (a LISTING mark, each pod as ADDED, then a LISTED mark whose ``object["uids"]`` are every
    pod listed), then watched from the list's resourceVersion. Each watch ends after
    WATCH_SECONDS and the next resumes from the version it reached, with bookmarks, so
    nothing is listed again and no event between the two is lost; only when the API server
    refuses that version (410 Gone: it compacted past it) or the watch fails is there a new
    list (its ended pods are posted again and answered as replays)."""
    from kubernetes import client, watch
    from kubernetes.client.exceptions import ApiException

    from app.kubernetes.apiserver import load_client_config

    api_client = load_client_config()
    core = client.CoreV1Api(api_client)
    lister = core.list_namespaced_pod if namespace else core.list_pod_for_all_namespaces
    scope: dict[str, Any] = {"namespace": namespace} if namespace else {}
    selector = f"spec.schedulerName={scheduler_name}"  # the API server filters, not us
    version: str | None = None  # where the last list or watch ended; None: list again
    while True:
        if version is None:
            yield {"type": "LISTING", "object": None}
            uids: list[str] = []
            token: str | None = None
            try:
                while True:  # one consistent snapshot, page by page
                    page = lister(field_selector=selector, limit=LIST_PAGE,
                                  **({"_continue": token} if token else {}), **scope)
                    for pod in page.items:
                        uids.append(pod.metadata.uid)
                        yield {"type": "ADDED",
                               "object": api_client.sanitize_for_serialization(pod)}
                    token = page.metadata._continue
                    if not token:
                        break
            except ApiException as exc:  # no LISTED: nothing departs on a partial list
                log.warning("pod list failed (%s); listing again", exc.status)
                time.sleep(1)
                continue
            version = page.metadata.resource_version
            yield {"type": "LISTED", "object": {"uids": uids}}
        w = (watch_factory or watch.Watch)()
        try:
            # Bookmarks keep the version fresh where no pod changes, so a quiet namespace
            # does not fall behind the API server's compaction and list again.
            for event in w.stream(lister, field_selector=selector, resource_version=version,
                                  timeout_seconds=WATCH_SECONDS, allow_watch_bookmarks=True,
                                  **scope):
                yield {"type": event["type"],
                       "object": api_client.sanitize_for_serialization(event["object"])}
        except ApiException as exc:  # 410 Gone: the resource version expired; list again
            log.warning("watch ended (%s); listing again", exc.status)
            version = None
            time.sleep(1)
        else:
            version = w.resource_version


def controller_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """The options every Kubernetes-side process of Headroom takes (watcher, Kueue)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="Headroom's base URL")
    parser.add_argument("--cluster", required=True, help="the Headroom cluster id")
    return parser


def headroom_http(url: str) -> httpx.Client | None:
    """A client of Headroom with the key in $HEADROOM_API_KEY, and logging set up; None (and
    a message) without a key."""
    key = os.environ.get("HEADROOM_API_KEY")
    if not key:
        print("set HEADROOM_API_KEY to a write key for the cluster", file=sys.stderr)
        return None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    return httpx.Client(base_url=url, timeout=30, headers={"Authorization": f"Bearer {key}"})


def main(argv: list[str] | None = None) -> int:
    parser = controller_parser("python -m app.kubernetes.watcher", __doc__)
    parser.add_argument("--scheduler-name", default="headroom-scheduler",
                        help="only pods with this spec.schedulerName")
    parser.add_argument("--namespace", default=None,
                        help="watch one namespace (default all; no reconcile then)")
    parser.add_argument("--no-reconcile", action="store_true",
                        help="never depart a job because its pod is missing from a list "
                             "(for a cluster where other clients post UUID job ids)")
    args = parser.parse_args(argv)
    http = headroom_http(args.url)
    if http is None:
        return 2
    with http:
        reconcile = not args.no_reconcile and args.namespace is None
        watcher = Watcher(http, args.cluster, args.scheduler_name, reconcile=reconcile)
        log.info("watching pods of scheduler %s for cluster %s (reconcile %s)",
                 args.scheduler_name, args.cluster, "on" if reconcile else "off")
        watcher.handle(pod_events(args.namespace, args.scheduler_name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
