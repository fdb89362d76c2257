"""Deployments a moment cluster is outgrowing: those expected to need a large share of it on
their own, and, where none is, the largest while the cluster as a whole is expected to
outgrow itself. Admission cannot protect the SLA from a deployment already admitted; the
service names it (/state's list, the scale-outs' `migrate` answer) so that an operator or
an orchestrator can move it. A mixin of MomentEngine, reading its cached moments and totals."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.policies.moments.deployment import Deployment

# A deployment whose own expected cores reach this share of the cluster at some point of the
# grid: the cluster will refuse its scale-outs once it is that large, and admission control
# can do nothing about a deployment already admitted (docs/moments.md, "One deployment fills
# the cluster": at 10,000 cores under λ × 2 each failing life examined was one such deployment).
OUTGROWING_SHARE = 0.5
# ... and the same answer, for one deployment at a time, where no deployment is that large but
# the cluster as a whole is: its expected cores (the totals decisions use, the largest over the
# grid) reach its capacity. Admission keeps E + a few standard deviations below capacity at
# every step, so E reaching it means what was admitted has since been learnt to grow faster,
# and the cluster will refuse scale-outs whatever it admits next (at 50,000 cores under λ × 2
# one failing life held a deployment of a fifth of the cluster and four of 3-8% while E
# stood 1-10% above capacity, docs/moments.md). Moving the deployment with the largest expected
# peak frees the most; once it is gone the totals say whether another must follow. No constant:
# capacity itself is the line.
OUTGROWING_LISTED = 5  # the largest few are listed; the count says how many there are


class OutgrowingWatch:
    """MomentEngine's outgrowing() and the `migrate` answers, cached so that the service can
    ask on every response."""

    capacity: int
    policy: str
    overflow_sd: float
    admitted: int
    deployments: dict[str, Deployment]
    _cache: dict[str, tuple[np.ndarray, np.ndarray]]
    _tot_e: np.ndarray
    _tot_v: np.ndarray
    _updates: int

    def _watch_outgrowing(self) -> None:
        # outgrowing(): each cached deployment's peak expected cores, updated only for the ids
        # stored or removed since the last call (None: rebuild from the whole cache, as after
        # from_state); those at or above the limit it was last asked with; and the last
        # answer's ranking, with the cache version it was taken at.
        self._peaks: dict[str, float] = {}
        self._touched: set[str] | None = None
        self._over: tuple[float, dict[str, float]] = (0.0, {})
        self._ranked: tuple[tuple[int, int, int], tuple[float, str], list[tuple[float, str]]] | None = None
        # Live deployments that reached OUTGROWING_SHARE of the cluster's cores (checked again
        # when read: scale-ins and deaths shrink them). Their cached moments can be as old as
        # the last arrival: one that grew into the cluster through scale-outs alone is
        # outgrowing it whatever those moments expect (_holders).
        self._holding: dict[str, None] = {}
        # The limit they were noted at; infinite until the first read, which scans every
        # deployment (a restored engine's too), as any read after the limit falls does.
        self._holding_limit = math.inf
        # (totals version, E's largest over the grid, the overflow line's): _cluster_maxima.
        self._cluster_max: tuple[tuple[int, int] | None, float, float] = (None, 0.0, 0.0)

    def _migrate(self, d: Deployment) -> dict[str, Any] | None:
        """The answer to a deployment /state lists as outgrowing (its cached moments expect it
        to need OUTGROWING_SHARE of the cluster, or it holds that much now): migrate it to a
        larger cluster. Given on its own scale-outs, granted or denied, so an orchestrator that
        only posts events hears it where it acts; the same peaks and share as outgrowing(), so
        the two never disagree. The peak is taken once per stored moments (a scale-out costs a
        lookup otherwise)."""
        peak = self._held_peak(d)
        if peak is None:
            return None
        if peak >= OUTGROWING_SHARE * self.capacity:
            reason = "outgrowing_cluster"
        elif not self._holders() and self._overflow_candidate() == d.id:
            reason = "cluster_overflow"
        else:
            return None
        return {"reason": reason, "share": OUTGROWING_SHARE,
                "expected_peak_cores": peak, "expected_share": peak / self.capacity,
                "expected_cluster_share": self._cluster_peak() / self.capacity,
                **self._line_share()}

    def _held_peak(self, d: Deployment) -> float | None:
        """The peak outgrowing() and _migrate judge d by: its cached expected peak (_peak), or
        the cores it holds where it holds OUTGROWING_SHARE of the cluster and they are more."""
        peak = self._peak(d)
        if peak is not None and d.cores >= OUTGROWING_SHARE * self.capacity:
            peak = max(peak, float(d.cores))
        return peak

    def _note_holding(self, d: Deployment) -> None:
        """Remember d if it now holds OUTGROWING_SHARE of the cluster's cores."""
        if d.cores >= OUTGROWING_SHARE * self.capacity:
            self._holding[d.id] = None

    def _holders(self) -> list[str]:
        """The ids of the live deployments holding OUTGROWING_SHARE of the cluster's cores
        now, whatever their cached moments expect: those moments are recomputed at arrivals
        only, and a deployment can grow into the cluster through scale-outs in between (a
        4-core deployment scaled out to 70% of a 2,000-core cluster with no arrival between
        was told nothing before). At most two (their cores sum to at most the capacity)."""
        limit = OUTGROWING_SHARE * self.capacity
        if limit < self._holding_limit:  # the first read, or a smaller cluster: scan them all
            self._holding = {key: None for key, d in self.deployments.items() if d.alive and d.cores >= limit}
        self._holding_limit = limit
        held = []
        for key in list(self._holding):
            d = self.deployments.get(key)
            if d is None or not d.alive or d.cores < limit:
                del self._holding[key]
            else:
                held.append(key)
        return held

    def _cluster_maxima(self) -> tuple[float, float]:
        """The cluster's expected cores and its cores at the cluster_overflow line (E +
        overflow_sd * sd; E itself where overflow_sd is 0), each the largest over the grid,
        from the totals as of the last admission or recompute (what decisions use); taken
        once per change of the totals, as every scale-out asks."""
        version = (self._updates, self.admitted)
        if self._cluster_max[0] != version:
            peak = float(self._tot_e.max())
            line = peak if not self.overflow_sd else float(
                (self._tot_e + self.overflow_sd * np.sqrt(np.maximum(self._tot_v, 0.0))).max())
            self._cluster_max = (version, peak, line)
        return self._cluster_max[1], self._cluster_max[2]

    def _cluster_peak(self) -> float:
        """The cluster's expected cores, the largest over the grid."""
        return self._cluster_maxima()[0]

    def _overflow_candidate(self) -> str | None:
        """The deployment told to migrate because the cluster is expected to outgrow itself:
        the one with the largest expected peak, while the cluster's cores at the overflow
        line (_overflow_line) reach capacity (None otherwise). Read on every scale-out, so
        the cheap test comes first and the ranking is outgrowing()'s, refreshed only when
        the cache changed."""
        if self.policy == "threshold" or self._overflow_line() < self.capacity:
            return None
        return self._ranking()[1][1] or None

    def _overflow_line(self) -> float:
        """The cluster's cores at the cluster_overflow line, the largest over the grid: E +
        overflow_sd * sd (Cantelli: at 1 sd, overflow is as likely as not by the bound the
        second moment rule uses), E itself where overflow_sd is 0."""
        return self._cluster_maxima()[1]

    def _line_share(self) -> dict[str, float]:
        """The line over capacity, for answers, where it is not E's (old answers unchanged)."""
        if not self.overflow_sd:
            return {}
        return {"overflow_sd": self.overflow_sd, "overflow_line_share": self._overflow_line() / self.capacity}

    def _peak(self, d: Deployment) -> float | None:
        """The largest of d's expected cores over the grid in its cached moments (None
        without any), taken once per stored moments and kept on d."""
        if d.peak is None:
            entry = self._cache.get(d.id)
            if entry is None:
                return None
            d.peak = float(entry[0].max())
        return d.peak

    def expected_peak(self, deployment_id: str) -> float | None:
        """The largest of a live deployment's expected cores over the grid, from the moments
        the decisions use (None for the zeroth-moment rule or a dead deployment)."""
        d = self.deployments.get(deployment_id)
        return None if d is None or not d.alive else self._peak(d)

    def outgrowing(self) -> dict[str, Any] | None:
        """Live deployments expected to need OUTGROWING_SHARE of the cluster on their own:
        the largest of each one's expected cores over the grid (its cached moments, so as
        fresh as the totals decisions use), or the cores it holds now where that is more
        (_holders), against capacity. No admission decision protects
        the SLA from such a deployment: it was admitted already, and the cluster refuses its
        scale-outs once it has grown into the rest (in simulation, 928 of 935 failures of one
        life were its own). An operator can move it or cap it; the service says which, and
        how large it is expected to grow. Where none is that large but the cluster's cores at
        the overflow line reach capacity (`expected_cluster_share` ≥ 1 where overflow_sd is 0,
        else `overflow_line_share` ≥ 1: E + overflow_sd * sd), the deployment with the largest
        expected peak is listed instead (reason "cluster_overflow"): the same problem spread
        over several deployments, and moving the largest frees the most. Each row's
        `reason` says which; the rows are what _migrate answers. None for the zeroth-moment
        rule (no moments).
        The service asks on every response (the metrics gauge): unless a deployment was
        stored, recomputed or removed since the last call (admissions and deaths; scale-outs
        only mark it), the last ranking is reused; otherwise only those deployments' peaks
        (a maximum over the grid each) and the largest of all peaks are computed again
        (app.bench.moments --outgrowing)."""
        if self.policy == "threshold":
            return None
        _, (largest, _), over = self._ranking()
        holders = self._holders()
        if holders:  # the larger of each one's expected peak and the cores it holds
            peaks = {key: peak for peak, key in over}
            for key in holders:
                peaks[key] = self._held_peak(self.deployments[key]) or 0.0
            over = sorted(((peak, key) for key, peak in peaks.items()), reverse=True)
            largest = max(largest, over[0][0])  # the gauge and the alert see them too
        rows = [(peak, key, "outgrowing_cluster") for peak, key in over]
        if not over and (key := self._overflow_candidate()) is not None:
            rows.append((largest, key, "cluster_overflow"))
        return {
            "share": OUTGROWING_SHARE,
            "largest_expected_share": largest / self.capacity,
            "expected_cluster_share": self._cluster_peak() / self.capacity,
            **self._line_share(),
            "count": len(rows),
            "deployments": [{"deployment_id": key, "cores": self.deployments[key].cores,
                             "expected_peak_cores": peak, "expected_share": peak / self.capacity,
                             "reason": reason}
                            for peak, key, reason in rows[:OUTGROWING_LISTED]],
        }

    def _ranking(self) -> tuple[tuple[int, int, int], tuple[float, str], list[tuple[float, str]]]:
        """(cache version, (largest peak, its id), the deployments at OUTGROWING_SHARE or more,
        largest first), refreshed as outgrowing() describes when the cache changed."""
        version = (self._updates, self.admitted, self.capacity)
        if self._ranked is None or self._ranked[0] != version:
            limit = OUTGROWING_SHARE * self.capacity
            peaks = self._peaks
            over_limit, over = self._over
            if self._touched is None:
                peaks.clear()
                over = {}
                touched = set(self._cache)
            else:
                touched = self._touched
            if over_limit != limit:
                over = {key: peak for key, peak in peaks.items() if peak >= limit}
            for key in touched:
                if key not in self._cache:
                    peaks.pop(key, None)
                    over.pop(key, None)
                    continue
                peak = peaks[key] = self._peak(self.deployments[key]) or 0.0  # cached: never None
                if peak >= limit:
                    over[key] = peak
                else:
                    over.pop(key, None)
            self._touched = set()
            self._over = (limit, over)
            ranked = sorted(((peak, key) for key, peak in over.items()), reverse=True)
            # The largest peak with its id (ties: the larger id, as max over pairs gives).
            largest = max(((peak, key) for key, peak in peaks.items()), default=(0.0, ""))
            self._ranked = (version, largest, ranked)
        return self._ranked

    def expected_peaks(self) -> dict[str, float]:
        """Every cached deployment's largest expected cores over the grid, by id (what
        outgrowing() ranks; refreshed as it describes). Not to be modified."""
        self._ranking()
        return self._peaks
