"""Prometheus metrics, summed over every worker process of a server.

``headroom serve --workers N`` (N > 1) points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh directory
before the workers start: prometheus-client then keeps each worker's values in a memory-mapped
file there, and a scrape of ``/metrics`` from any worker reads all the files. So a counter
never jumps between scrapes whoever answers, and no ``pid`` label is needed (it is gone).

A worker that exits cleanly is marked dead (``worker_exit``, from the app's lifespan); its
counters and histograms stay in the sums, as they must for ``rate()``. A killed worker is not
marked: its counters stay in the sums all the same, and its gauges keep their last value
(every gauge here is ``max`` or ``mostrecent`` across processes, so a dead value is at worst
stale, never double counted). The directory is emptied at each server start.

Without the variable (one worker, tests) each ``Metrics`` keeps its own registry in memory.

Per-cluster gauges (queue length, scale-out failure ratio and SLA, reservation violation ratio
and epsilon, ...) are labelled by cluster id, which is every owner's; they exist only with
``per_cluster`` (the server sets it when HEADROOM_METRICS_TOKEN guards /metrics).
Cardinality: they are labelled for at most ``MAX_LABELLED_CLUSTERS`` clusters per process (the first seen; later ones are counted in
``headroom_metrics_clusters_unlabelled_total`` instead); a deleted cluster's series lasts until
the server restarts. Every other label has a bounded vocabulary (routes, kinds, codes).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import prometheus_client
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from app.policies.protocol import PolicyAdapter

# Latency buckets in seconds, chosen around the service's goals (p99 of 20-30 ms).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Events per committed transaction: 1 without contention; MAX_GROUP (events.py) caps it.
GROUP_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
MAX_LABELLED_CLUSTERS = 500
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# A `_created` series per counter and histogram doubles what is stored and graphs nothing here.
prometheus_client.disable_created_metrics()


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


CALIBRATION_STATUSES = ("queued", "running", "done", "failed", "cancelled")


class Metrics:
    """``per_cluster``: also the gauges labelled by cluster (or stream) id. They name every
    owner's clusters, so the service turns them on only when /metrics needs a token
    (HEADROOM_METRICS_TOKEN); off, they are neither kept nor exported and a decision skips
    their update."""

    def __init__(self, per_cluster: bool = False) -> None:
        self.per_cluster = per_cluster
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "headroom_http_requests", "HTTP requests by method, route and status.",
            ["method", "route", "status"], registry=r)
        self.latency = Histogram(
            "headroom_http_request_duration_seconds", "Request latency by route.",
            ["method", "route"], buckets=BUCKETS, registry=r)
        self.refused = Counter(
            "headroom_requests_refused",
            "Requests a request limit answered with 429, by the limit: key_rate, owner_rate "
            "or owner_concurrency (app/api/throttle.py).", ["reason"], registry=r)
        self.decisions = Counter(
            "headroom_decisions",
            "Committed decisions by policy kind, event kind, outcome and reason code.",
            ["policy", "event", "outcome", "reason"], registry=r)
        self.migrations = Counter(
            "headroom_migrations", "Jobs a committed decision migrated (DRA after a departure; "
            "no other policy migrates, so no label).", registry=r)
        self.migrate_answers = Counter(
            "headroom_scale_out_migrate_answers", "Scale-outs a moment cluster answered with "
            "migrate: the deployment's own moments expect it to need half the cluster "
            "(/state's outgrowing names it).", registry=r)
        self.migrations_skipped = Counter(
            "headroom_migrations_skipped", "Migrations DRA would have made but its "
            "migration_budget had no token for.", registry=r)
        self.group_size = Histogram(
            "headroom_group_commit_size", "Decisions committed per transaction (group commit).",
            buckets=GROUP_BUCKETS, registry=r)
        self.preemptions = Counter(
            "headroom_preemptions", "Jobs preempted by decisions, by why: reclaim (a lender "
            "took back its quota), priority (its tenant's higher job), policy (DRA's own).",
            ["reason"], registry=r)
        self.replayed = Counter(
            "headroom_log_replayed_events",
            "Logged events replayed to bring a cached engine up to the committed version "
            "(catch-up after another process wrote, or after a full load).", registry=r)
        self.catch_up_replays = Counter(
            "headroom_catch_up_replayed_events",
            "Logged events replayed to bring an engine this process held up to date: what "
            "other processes decided for a cluster since this one last did. Near zero when "
            "each cluster's requests reach one process (affinity routing, deploy/).",
            registry=r)
        self.forwarded = Counter(
            "headroom_forwarded_events", "Single events this worker handed to the worker "
            "that decides their cluster on this host (`headroom serve --workers N`), by "
            "outcome: answered there, or decided here because that worker could not be "
            "reached.", ["outcome"], registry=r)
        self.full_loads = Counter(
            "headroom_engine_full_loads", "Engines built from a snapshot and the log tail "
            "(cache miss: first use in this process, or evicted).", registry=r)
        self.tick_lag = Gauge(
            "headroom_tick_lag_seconds", "Duration of the tick loop's last pass over the "
            "wall-clock clusters: how much later than the interval a cluster may be ticked.",
            registry=r, multiprocess_mode="max")
        self.calibrations = Gauge(
            "headroom_moment_calibrations", "Moment threshold calibrations by status (queued, "
            "running, done, failed, cancelled), as the calibration loop last counted them: "
            "queued ones wait for a process with a free calibration worker.",
            ["status"], registry=r, multiprocess_mode="mostrecent")
        for status in CALIBRATION_STATUSES:  # exported from the start, before a pass counts
            self.calibrations.labels(status)
        self.calibrations_running_here = Gauge(
            "headroom_moment_calibrations_running", "Calibrations this process's children "
            "are computing now.", registry=r, multiprocess_mode="sum")
        if per_cluster:
            self._cluster_series(r)

    def _cluster_series(self, r: CollectorRegistry) -> None:
        self.migrations_per_departure = Gauge(
            "headroom_migrations_per_departure", "A DRA cluster's migrations per departure "
            "since its engine's counts began (its creation, or a snapshot taken before the "
            "count existed).", ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.queue_length = Gauge(
            "headroom_queue_length", "Jobs waiting in a queued cluster, after its last decision.",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.scale_out_failure = Gauge(
            "headroom_scale_out_failure_ratio",
            "A moment cluster's realized scale-out failure ratio (denied / requested).",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.scale_out_sla = Gauge(
            "headroom_scale_out_sla", "A moment cluster's declared SLA: the failure ratio promised.",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.growth_calibration = Gauge(
            "headroom_scale_out_growth_calibration_ratio",
            "How far a learning moment cluster's learnt prior lies past what its threshold "
            "was calibrated for: its scale-out rate over the largest calibrated multiple of "
            "the declared one, or its cores' lifetime over the declared one, whichever is "
            "larger (1: within); above 1.1 the SLA's calibration does not cover its workload.",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.largest_share = Gauge(
            "headroom_scale_out_largest_deployment_share",
            "The largest share of a moment cluster's capacity that one live deployment is "
            "expected to need at some point of the grid (its own moments), or holds now "
            "where that is half or more; from 0.5 the "
            "cluster will refuse its scale-outs once it is that large, whatever the cluster "
            "admits (/state's outgrowing).",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.cluster_share = Gauge(
            "headroom_scale_out_expected_cluster_share",
            "A moment cluster's expected cores over its capacity, the largest over the grid "
            "(the totals its decisions use); from 1 the cluster as a whole is expected to "
            "outgrow itself (/state's outgrowing).",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.overflow_line = Gauge(
            "headroom_scale_out_overflow_line_share",
            "A moment cluster's expected cores plus policy.overflow_sd standard deviations of "
            "them, over its capacity, the largest over the grid (the expected share where "
            "overflow_sd is 0): from 1 its largest deployment is told to migrate "
            "(reason cluster_overflow, /state's outgrowing).",
            ["cluster"], registry=r, multiprocess_mode="mostrecent")
        self.tenant_dominant_share = Gauge(
            "headroom_tenant_dominant_share",
            "A tenant's fair-sharing value: what it borrows of its cohort's lendable quota, on "
            "the resource where that is most, over its weight (0: within its nominal quota), "
            "after the cluster's last decision.",
            ["cluster", "tenant"], registry=r, multiprocess_mode="mostrecent")
        self.tenant_preempted = Gauge(
            "headroom_tenant_preempted_jobs",
            "A tenant's jobs preempted so far (reclaimed by a lender, or by its own higher "
            "jobs), as the cluster's state counts them.",
            ["cluster", "tenant"], registry=r, multiprocess_mode="mostrecent")
        self.tenant_refused = Gauge(
            "headroom_tenant_refused_arrivals",
            "A tenant's arrivals and gangs refused so far (by quota or by the cluster).",
            ["cluster", "tenant"], registry=r, multiprocess_mode="mostrecent")
        self.violation = Gauge(
            "headroom_reservation_violation_ratio",
            "A reservation stream's time-average violation ratio so far, per resource.",
            ["reservation", "resource"], registry=r, multiprocess_mode="mostrecent")
        self.epsilon = Gauge(
            "headroom_reservation_epsilon", "A reservation stream's violation budget per resource.",
            ["reservation", "resource"], registry=r, multiprocess_mode="mostrecent")
        self.unlabelled = Counter(
            "headroom_metrics_clusters_unlabelled",
            f"Per-cluster gauge updates dropped: the process already labels "
            f"{MAX_LABELLED_CLUSTERS} clusters.", registry=r)
        self._labelled: set[str] = set()
        self._gauges: dict[str, Gauge] = {
            name: g for name, g in vars(self).items() if isinstance(g, Gauge) and g is not
            self.tick_lag}

    # -- hooks --------------------------------------------------------------------------------
    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)

    def committed(self, cluster: Any, item: Any, rows: Iterable[dict[str, Any]]) -> None:
        """After a group committed: ``rows`` are its logged events, ``item.adapter`` the
        cluster's adapter as they left it."""
        rows = list(rows)
        if not rows:
            return
        kind = cluster.policy_kind
        self.group_size.observe(len(rows))
        for r in rows:
            response = r["response"]
            self.decisions.labels(kind, r["kind"], r["decision"],
                                  response.get("reason") or "").inc()
            if response.get("migration"):
                self.migrations.inc()
            if response.get("migrate"):
                self.migrate_answers.inc()
            if (response.get("details") or {}).get("migration_skipped"):
                self.migrations_skipped.inc()
            for p in response.get("preempted") or ():
                self.preemptions.labels(p.get("reason") or "policy").inc()
        if self.per_cluster and item is not None and self._may_label(cluster.id):
            self._cluster_gauges(cluster.id, item.adapter, rows[-1]["response"])

    def catch_up(self, replayed: int, full_load: bool) -> None:
        if full_load:
            self.full_loads.inc()
        if replayed > 0:
            self.replayed.inc(replayed)
            if not full_load:
                self.catch_up_replays.inc(replayed)

    def tick_pass(self, seconds: float) -> None:
        self.tick_lag.set(seconds)

    def calibration_pass(self, by_status: dict[str, int], running_here: int) -> None:
        for status in CALIBRATION_STATUSES:
            self.calibrations.labels(status).set(by_status.get(status, 0))
        self.calibrations_running_here.set(running_here)

    def _may_label(self, cluster_id: str) -> bool:
        if cluster_id in self._labelled:
            return True
        if len(self._labelled) >= MAX_LABELLED_CLUSTERS:
            self.unlabelled.inc()
            return False
        self._labelled.add(cluster_id)
        return True

    def _cluster_gauges(self, cluster_id: str, adapter: PolicyAdapter[Any],
                        response: dict[str, Any]) -> None:
        """The gauges the adapter reports (``PolicyAdapter.gauges``), by their attribute name
        here: a value, or values by resource (the second label). A name not defined here is
        not exported (this runs after the commit, where nothing may fail the answer)."""
        for name, value in adapter.gauges(response).items():
            gauge = self._gauges.get(name)
            if gauge is None:
                continue
            if isinstance(value, Mapping):
                for label, v in value.items():
                    gauge.labels(cluster_id, label).set(v)
            else:
                gauge.labels(cluster_id).set(value)

    # -- exposition ---------------------------------------------------------------------------
    def render(self) -> bytes:
        if multiprocess_dir() is None:
            return generate_latest(self.registry)
        # Every process's files, this one's included: the sum over the server's workers.
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)

    def worker_exit(self) -> None:
        if multiprocess_dir() is not None:
            multiprocess.mark_process_dead(os.getpid())


def prepare_multiprocess_dir(path: str) -> None:
    """Empty ``path`` of an earlier server's files (their counters would be summed in)."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.remove(os.path.join(path, name))
