"""Pod departures for Headroom: watch pods end and post idempotent departures.

A pod leaves its server when it is deleted or reaches a terminal phase (Succeeded, Failed).
Each such pod of the Headroom scheduler (``spec.schedulerName``) is posted as a departure of
job ``<pod UID>`` with event id ``depart-<pod UID>``: a pod seen ending twice (phase change,
then deletion; or a watch that restarts and lists it again) is the same event, which Headroom
answers as a replay. A pod Headroom never placed (deleted before its bind, or not Headroom's)
answers 404, which is logged and skipped.

On a queued cluster a pod deleted while its job still waits is the same departure: Headroom
withdraws the job from its queue (answer ``withdrawn``), so it never starts and never holds a
slot. A departure answered 409 ``job_not_running`` came after the job had already left
(finished or withdrawn): nothing to do.

    python -m app.kubernetes.watcher --url https://headroom:8000 --cluster <id> \\
        --scheduler-name headroom-scheduler      # the key in $HEADROOM_API_KEY

``departure_of`` and ``Watcher.handle`` take plain watch events (``{"type", "object"}`` with
the pod as a dict), so tests drive them with a fake stream; ``main`` feeds them from the API
server through the ``kubernetes`` client: each watch resumes where the last one ended, and
the pods are listed again only when the API server no longer has that point (``pod_events``).
A pod deleted while the watcher is not running is not seen (docs/integrations/kubernetes.md,
"How the watcher follows pods").
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger("headroom.kubernetes.watcher")

TERMINAL_PHASES = ("Succeeded", "Failed")
WATCH_SECONDS = 300  # one watch request; the next resumes where it ended


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
    phase = (pod.get("status") or {}).get("phase")
    if event.get("type") == "DELETED":
        why = "deleted"
    elif event.get("type") in ("ADDED", "MODIFIED") and phase in TERMINAL_PHASES:
        why = phase.lower()
    else:
        return None
    return Departure(uid, f"{meta.get('namespace')}/{meta.get('name')}", why)


class Watcher:
    def __init__(self, client: httpx.Client, cluster_id: str, scheduler_name: str):
        self.client, self.cluster_id, self.scheduler_name = client, cluster_id, scheduler_name
        self.posted = 0

    def post(self, d: Departure) -> dict[str, Any] | None:
        """Post one departure, retrying transient failures; None when Headroom does not know
        the job or it has left already."""
        for attempt in range(6):
            try:
                r = self.client.post(f"/v1/clusters/{self.cluster_id}/departures",
                                     json={"event_id": f"depart-{d.uid}", "job_id": d.uid})
            except httpx.TransportError as exc:
                log.warning("departure not posted yet: %s", exc)
            else:
                if r.status_code == 200:
                    self.posted += 1
                    return r.json()
                if r.status_code == 409 and r.json().get("code") == "job_not_running":
                    return None  # finished or withdrawn: its departure happened already
                if r.status_code == 404:
                    log.info("pod %s (%s) is not a Headroom job; skipped", d.pod, d.uid)
                    return None
                if r.status_code < 500 and r.status_code != 429:
                    r.raise_for_status()
                log.warning("departure of %s answered %s; retrying", d.pod, r.status_code)
            time.sleep(min(0.2 * 2 ** attempt, 5))
        raise RuntimeError(f"could not post the departure of {d.pod} ({d.uid})")

    def handle(self, events: Iterable[Mapping[str, Any]]) -> None:
        for event in events:
            d = departure_of(event, self.scheduler_name)  # None for pod_events' RESTARTED marks
            if d is None:
                continue
            answer = self.post(d)
            if answer is not None:
                log.info("departure of %s (%s): %s%s", d.pod, d.why,
                         "replayed" if answer.get("replayed") else "posted",
                         ", withdrawn from its queue" if answer.get("decision") == "withdrawn" else "")


def pod_events(namespace: str | None,
               watch_factory: Callable[[], Any] | None = None) -> Iterator[dict[str, Any]]:
    """Watch events from the API server, pods as plain dicts, for ever. Each watch ends after
    WATCH_SECONDS and the next resumes from the resourceVersion it reached, so nothing is
    listed again and no event between the two is lost; only when the API server refuses that
    version (410 Gone: it compacted past it) or the watch fails does a fresh list start,
    marked by a RESTARTED event (its pods come again as ADDED; ended ones are posted again and
    answered as replays)."""
    from kubernetes import client, watch
    from kubernetes.client.exceptions import ApiException

    from app.kubernetes.apiserver import load_client_config

    api_client = load_client_config()
    core = client.CoreV1Api(api_client)
    lister = core.list_namespaced_pod if namespace else core.list_pod_for_all_namespaces
    version: str | None = None  # where the last watch ended; None: list afresh
    while True:
        w = (watch_factory or watch.Watch)()
        kwargs: dict[str, Any] = {"namespace": namespace} if namespace else {}
        if version is not None:
            kwargs["resource_version"] = version
        try:
            # Bookmarks keep the version fresh where no pod changes, so a quiet namespace
            # does not fall behind the API server's compaction and list again.
            for event in w.stream(lister, timeout_seconds=WATCH_SECONDS,
                                  allow_watch_bookmarks=True, **kwargs):
                yield {"type": event["type"],
                       "object": api_client.sanitize_for_serialization(event["object"])}
        except ApiException as exc:  # 410 Gone: the resource version expired; list again
            log.warning("watch ended (%s); listing again", exc.status)
            version = None
            time.sleep(1)
        else:
            version = w.resource_version
            if version is not None:
                continue
        yield {"type": "RESTARTED", "object": None}


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
    parser.add_argument("--namespace", default=None, help="watch one namespace (default all)")
    args = parser.parse_args(argv)
    http = headroom_http(args.url)
    if http is None:
        return 2
    with http:
        watcher = Watcher(http, args.cluster, args.scheduler_name)
        log.info("watching pods of scheduler %s for cluster %s", args.scheduler_name,
                 args.cluster)
        watcher.handle(pod_events(args.namespace))
    return 0


if __name__ == "__main__":
    sys.exit(main())
