"""Moment-based admission engine: one cluster of `capacity` cores, event interface.

Events: admit / scale_out / scale_in / shutdown, each with a non-decreasing time `at` (hours).
Per deployment we keep its cores, base prior, observed statistics, and a cached (E, Var) pair
on the horizon grid; cluster totals Σ E and Σ Var are kept incrementally (subtract the old
cache, add the new one), so an admission costs O(grid) plus recomputing the deployments that
changed since the last admission. Totals are re-summed from scratch every `RESUM_EVERY`
updates to stop float drift. to_state() stores the totals verbatim so a restored engine
subtracts bit-identical caches and makes identical decisions.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from typing import Any

import numpy as np

from app.policies.moments import errors, policies
from app.policies.moments.deployment import Deployment
from app.policies.moments.formulas import Belief, Grid, horizon_label

# The compiled moments: what the engine caches, persists and rebuilds must come from one
# implementation (formulas.py is the reference it is tested against).
from app.policies.moments.kernel import (
    ROUNDING,
    NotFinite,
    moments,
    moments_each,
    retotal,
)
from app.policies.moments.learning import (
    MAX_FACTOR,
    REPRIOR_PER_ADMIT,
    PopulationLearner,
)
from app.policies.moments.priors import (
    POPULATION_DELTA,
    POPULATION_NU,
    Prior,
    Stats,
    gamma_mean_var,
    posterior,
    resolve_prior,
)
from app.policies.moments.sla import GrowthLadder, SlaLoop

RESUM_EVERY = 4096
CATEGORY_WINDOW = 200  # most recent members of a category used for its prior
CATEGORY_MIN = 5
# A newcomer's own moments depend only on (cores, belief); without declared priors every
# arrival has the population belief, so a handful of initial sizes cover almost all of them.
NEWCOMER_CACHE = 256
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
DEFAULT_THRESHOLDS = {"threshold": 8864 / 20000, "first_moment": 14223 / 20000, "second_moment": 0.112}


def _not_finite(field: str) -> errors.InvalidPrior:
    """Last line of defence behind the request bounds (priors.py): a moment that is not a
    finite number would poison the cluster totals for good and cannot be written as JSON.
    The kernel checks every moment it computes (kernel.NotFinite)."""
    return errors.InvalidPrior(field, "the belief gives moments that are not finite numbers")


def _exposed(d: Deployment, at: float) -> Deployment:
    """A copy of `d` with its exposure brought up to `at`; `d` itself is not touched."""
    ghost = Deployment(d.id, d.cores, d.born, d.last, d.prior, d.stats.copy())
    ghost.advance(at)
    return ghost


def _mean(gamma: tuple[float, float]) -> float:
    return gamma[0] / gamma[1]


class MomentEngine:
    def __init__(
        self,
        capacity: int,
        policy: str = "second_moment",
        threshold: float | None = None,
        marginal: bool = True,
        grid: Grid | None = None,
        population: Prior | None = None,
        delta: float = POPULATION_DELTA,
        nu: float = POPULATION_NU,
        refresh_per_admit: int = 4,
        loop: SlaLoop | None = None,
        learn: bool = False,
        arrival_size_evidence: bool = False,
        ladder: GrowthLadder | None = None,
        overflow_sd: float = 0.0,
    ) -> None:
        if policy not in policies.POLICIES:
            raise errors.MomentsError("policy", f"unknown policy {policy!r}; known: {', '.join(policies.POLICIES)}")
        if capacity <= 0:
            raise errors.MomentsError("capacity", "capacity must be positive")
        self.capacity = int(capacity)
        self.policy = policy
        # threshold: zeroth/first moment take t in cores (default: Table 2's t scaled to capacity),
        # second moment takes ρ.
        if threshold is None:
            d = DEFAULT_THRESHOLDS[policy]
            threshold = d if policy == "second_moment" else d * capacity
        self.threshold = float(threshold)
        self.marginal = marginal
        self.loop = loop  # closed-loop control of `threshold` on realized failures (sla.py)
        # The threshold of each calibrated growth, followed as the learner adopts priors (sla.py).
        self.ladder = ladder
        self.grid = grid or Grid()
        self.population = population or Prior()
        self.delta = delta
        self.nu = nu
        self.refresh_per_admit = refresh_per_admit
        # Count an arrival's size as one observation of its σ (priors.py): right where an
        # arrival's size is drawn like a scale-out's, as in our §2.1 simulator; the paper's
        # engine does not (it knows nothing of an arrival "except for the initial number of
        # cores", and reads nothing into that).
        self.arrival_size_evidence = arrival_size_evidence
        # The cluster_overflow line: the cluster's cores are expected to outgrow it where
        # E + overflow_sd * sd of them reaches capacity on the grid (0: E itself, as before
        # the option; the first moment has no variances, so E there whatever this says).
        self.overflow_sd = float(overflow_sd)
        # Empirical-Bayes population prior (learning.py); None keeps the declared one (the paper).
        # The zeroth-moment rule has no model to correct.
        self.learner = PopulationLearner(self.population) if learn and policy != "threshold" else None
        self._reprior: deque[str] = deque()  # moved to a learnt prior, not yet recomputed
        self._dirty: dict[str, None] = {}  # insertion-ordered set: swap order fixes float sums
        self._rotation: deque[str] = deque()  # live ids, round-robin order for drift refresh
        self.now = 0.0
        self.active = 0
        self.deployments: dict[str, Deployment] = {}
        self.categories: dict[str, deque[str]] = {}
        self.requests = 0
        self.denied = 0
        self.admitted = 0
        self.rejected = 0
        self._cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._tot_e = np.zeros(self.grid.shape)
        self._tot_v = np.zeros(self.grid.shape)
        self._updates = 0
        self._newcomers: dict[tuple[int, Belief], tuple[np.ndarray, np.ndarray]] = {}
        # Only the second moment rule reads variances; the first moment's cache holds E and
        # zeros (half the work per deployment, E unchanged bit for bit).
        self._variance = policy == "second_moment"
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

    # ---- validation helpers: raise before touching anything --------------------------------
    def _check_time(self, at: float) -> float:
        return errors.check_time(self.now, at)

    _check_cores = staticmethod(errors.check_cores)

    def _live(self, deployment_id: str) -> Deployment:
        d = self.deployments.get(deployment_id)
        if d is None:
            raise errors.UnknownDeployment("deployment_id", f"unknown deployment {deployment_id!r}")
        if not d.alive:
            raise errors.DeadDeployment("deployment_id", f"deployment {deployment_id!r} is dead")
        return d

    # ---- moment bookkeeping --------------------------------------------------------------------
    def belief(self, d: Deployment) -> Belief:
        return posterior(d.prior, d.stats, self.delta, self.nu)

    def _mark(self, d: Deployment) -> None:
        d.dirty = True
        self._dirty[d.id] = None

    def _swap(self, d: Deployment, new: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Replace d's cached moments in the totals (or remove them if d is dead); `new`:
        its moments already computed at its current statistics."""
        old = self._cache.pop(d.id, None)
        if old is not None and self._touched is not None:
            self._touched.add(d.id)
        d.cached_inputs = None
        if d.alive and self.policy != "threshold":
            if new is None:
                new = moments(d.cores, self.belief(d), self.grid, self._variance)
            self._store(d, new, old)
        elif old is not None:
            retotal(self._tot_e, self._tot_v, old[0], old[1], old[0], old[1], True, False)
        d.dirty = False
        self._dirty.pop(d.id, None)
        self._updates += 1
        if self._updates % RESUM_EVERY == 0:
            self._resum()

    def _resum(self) -> None:
        self._tot_e = np.zeros(self.grid.shape)
        self._tot_v = np.zeros(self.grid.shape)
        for key in sorted(self._cache):
            self._tot_e += self._cache[key][0]
            self._tot_v += self._cache[key][1]

    def _store(self, d: Deployment, new: tuple[np.ndarray, np.ndarray],
               old: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Cache d's moments `new` and add them to the totals, after taking out `old` (its
        previous ones, already popped from the cache)."""
        self._cache[d.id] = new
        d.peak = None
        if self._touched is not None:
            self._touched.add(d.id)
        prev = new if old is None else old  # read only when there is an old
        retotal(self._tot_e, self._tot_v, prev[0], prev[1], new[0], new[1], old is not None, True)
        d.cached_inputs = (d.cores, d.stats.copy(), d.prior)

    def _refresh(self, at: float, dry_run: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Recompute deployments changed by events, plus the `refresh_per_admit` stalest ones.

        Exposure time alone (cores living on without events) moves μ's and λ's posteriors
        slowly; recomputing every deployment at every admission would be O(|X|·grid), so those
        drift updates are spread round-robin over admissions instead. With dry_run the same
        totals are computed on copies and nothing is stored.
        """
        stale: list[Deployment] = []
        scanned = 0
        for key in self._rotation:  # round-robin: the front of the deque waited longest
            if len(stale) >= self.refresh_per_admit:
                break
            scanned += 1
            d = self.deployments.get(key)
            if d is not None and d.alive and not d.dirty:
                stale.append(d)
        todo = [self.deployments[key] for key in self._dirty] + stale
        # Deployments whose prior the learner replaced: a bounded number per admission, so
        # adopting a prior never costs one request a recompute of the whole cluster.
        chosen = {d.id for d in todo}
        repriored = 0
        for key in self._reprior:
            if repriored >= REPRIOR_PER_ADMIT:
                break
            repriored += 1
            d = self.deployments.get(key)
            if d is not None and d.alive and key not in chosen:
                todo.append(d)
                chosen.add(key)
        # Everything is computed (and checked) before anything moves: a refusal must leave
        # the engine as it was (the contract in app/policies/base.py).
        fresh = {} if self.policy == "threshold" else self._moments_at(todo, at)
        if not dry_run:
            for _ in range(repriored):
                self._reprior.popleft()
            for _ in range(scanned):
                key = self._rotation.popleft()
                d = self.deployments.get(key)
                if d is not None and d.alive:
                    self._rotation.append(key)
            self.now = at
            for d in todo:
                d.advance(at)
                self._swap(d, fresh.get(d.id))
            return self._tot_e, self._tot_v
        tot_e, tot_v = self._tot_e.copy(), self._tot_v.copy()
        for key, new in fresh.items():
            old = self._cache.get(key)
            if old is not None:
                tot_e -= old[0]
                tot_v -= old[1]
            tot_e += new[0]
            tot_v += new[1]
        return tot_e, tot_v

    def _moments_at(self, todo: list[Deployment], at: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each deployment's moments once its exposure reaches `at`, computed on copies of
        their statistics, each in arrays of its own (the same bits as moments() alone)."""
        if not todo:
            return {}
        ghosts = [_exposed(d, at) for d in todo]
        try:
            each = moments_each([g.cores for g in ghosts], [self.belief(g) for g in ghosts], self.grid,
                                self._variance)
        except NotFinite as exc:
            raise _not_finite(f"deployments.{ghosts[exc.index].id}") from exc
        return {g.id: m for g, m in zip(ghosts, each)}

    def _newcomer(self, cores: int, belief: Belief) -> tuple[np.ndarray, np.ndarray]:
        key = (cores, belief)
        hit = self._newcomers.get(key)
        if hit is None:
            try:
                hit = moments(cores, belief, self.grid, self._variance)
            except NotFinite as exc:
                raise _not_finite("prior") from exc
            for arr in hit:  # shared by every deployment admitted with this belief
                arr.setflags(write=False)
            if len(self._newcomers) >= NEWCOMER_CACHE:
                self._newcomers.pop(next(iter(self._newcomers)))
            self._newcomers[key] = hit
        return hit

    def _base_prior(self, category: str | None, prior: dict[str, Any] | None) -> tuple[Prior, Stats]:
        members = None
        if category is not None and category in self.categories:
            members = [self.belief(self.deployments[i]) for i in self.categories[category]]
        return resolve_prior(self.population_prior, members, prior, CATEGORY_MIN)

    @property
    def population_prior(self) -> Prior:
        """The prior an arrival without a declared or category prior gets."""
        return self.population if self.learner is None else self.learner.prior

    def _learn(self, at: float) -> None:
        """Re-estimate the population prior if one is due; on a change, every live
        deployment on it moves to the new one (recomputed over the next admissions)."""
        learner = self.learner
        if learner is None or not learner.due(at):
            return
        live = {}
        for key, frozen in learner.evidence:
            d = self.deployments.get(key)
            if frozen is None and d is not None and d.alive:
                live[key] = _exposed(d, at).stats  # exposure up to now, as the moments see it
        before = learner.prior
        new = learner.estimate(live, at, self.delta, self.nu)
        if new is None:
            return
        # Every live deployment on the population prior goes (back) in the queue, so one still
        # waiting from an earlier adoption would otherwise be recomputed twice. (A cautious
        # start can end on the prior it held: then there is nothing to recompute.)
        if new != before:
            self._reprior.clear()
            for d in self.deployments.values():
                if d.alive and d.population:
                    d.prior = new
                    self._reprior.append(d.id)
        if self.ladder is not None:
            self._climb()

    def start_cautious(self, factor: float, check: bool = True, fallback: bool = False) -> bool:
        """Believe λ × `factor` at the declared threshold until the cluster's own deployments
        tell (learning.py, ``start_cautious``): if they reject it for slower growth, the
        ordinary learner takes over; if they reject the declared prior for faster growth, the
        learnt prior with λ × `factor` as a floor under it, and the ladder. Only before the
        first event, and only for a cluster that learns its prior (False otherwise: it starts
        as declared). check=False skips the empty-cluster probe below: a stored declaration
        passed it when it was made and must build the same way ever after, whatever a later
        release's rounding makes of the probe. fallback: a probe that refuses starts the
        cluster as declared (False) instead of raising, for a factor the declaration got by
        default (sla.default_cautious_growth), which is not the user's error."""
        learner = self.learner
        if learner is None or factor == 1.0:
            return False
        if not 1.0 < factor <= MAX_FACTOR:
            raise errors.MomentsError("policy", f"a cautious start's growth factor must lie in (1, {MAX_FACTOR:g}]")
        if self.now != 0.0 or self.deployments or learner.learnt is not None:
            raise errors.MomentsError("policy", "a cautious start is only possible before the first event")
        learner.start_cautious(factor)
        # The smallest arrival into the empty cluster is the easiest admission there will ever
        # be (totals only grow with deployments): refused now, every arrival on the population
        # prior is refused for good, no evidence comes, and nothing ends the cautious start.
        # Measured: the second moment with λ × 2 at 500 and 2,000 cores admitted nothing.
        if check and self.admit("cautious-start-probe", 1, self.now, dry_run=True)["decision"] != "admitted":
            learner.cautious, learner.learnt = None, None
            if fallback:
                return False
            raise errors.MomentsError(
                "policy", f"believing λ × {factor:g}, this cluster would refuse even a 1-core "
                          "deployment while empty, so it would admit nothing and never learn "
                          "otherwise: declare a smaller cautious_growth, or none")
        return True

    def _climb(self) -> None:
        """Move to the ladder's threshold for the prior just adopted (learner.learnt): the
        threshold (and the loop's bounds, so what the loop tightened stays tightened) scale
        by the ratio of the two."""
        ladder = self.ladder
        assert ladder is not None
        # A cautious start's λ is assumed, not learnt: the ladder stays at step 1 until the
        # evidence confirms faster growth than declared (then the held factor is a floor).
        k, value = ladder.target(self.learnt_lambda_factor(), self.learnt_mu_factor())
        ratio = value / ladder.in_use()
        ladder.factor, ladder.threshold = k, value
        if ratio == 1.0:
            return
        self.threshold *= ratio
        if self.loop is not None:
            self.loop.lo *= ratio
            self.loop.hi *= ratio

    # ---- events ------------------------------------------------------------------------------
    def admit(
        self,
        deployment_id: str,
        cores: int,
        at: float,
        category: str | None = None,
        prior: dict[str, Any] | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Decide on an arriving deployment; if admitted (and not dry_run) activate its cores.

        prior: {"gamma": {"lambda": [a, b], "mu": [a, b], "sigma": [a, b]}} to replace the
        base prior, and/or {"observations": {<Stats field>: value}} as pseudo-observations.
        """
        at = self._check_time(at)
        cores = self._check_cores(cores)
        if not isinstance(deployment_id, str) or not deployment_id:
            raise errors.MomentsError("deployment_id", "deployment_id must be a non-empty string")
        if deployment_id in self.deployments:
            raise errors.DuplicateDeployment("deployment_id", f"deployment {deployment_id!r} already exists")
        if prior is not None and (not isinstance(prior, dict) or set(prior) - {"gamma", "observations"}):
            raise errors.InvalidPrior("prior", "prior takes only 'gamma' and 'observations'")
        try:
            base, stats = self._base_prior(category, prior)
        except errors.MomentsError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise errors.InvalidPrior("prior", f"invalid prior: {exc}") from exc
        if self.arrival_size_evidence:
            stats.sized_arrivals += 1
            stats.arrival_extra_cores += cores - 1
        d = Deployment(deployment_id, cores, at, at, base, stats, category)
        d.population = base is self.population_prior
        # The arrival's own moments depend only on its belief: compute (and check) them
        # before _refresh moves anything, so a refusal leaves the engine as it was.
        own = None if self.policy == "threshold" else self._newcomer(d.cores, self.belief(d))

        tot_e, tot_v = self._refresh(at, dry_run)
        verdict = self._decide(d, own, tot_e, tot_v)
        if self.active + cores > self.capacity:
            verdict = policies.Verdict(False, "no_capacity", verdict.worst, verdict.expected, verdict.bound, False)
        if not dry_run:
            if verdict.admitted:
                self.admitted += 1
                self.active += cores
                self.deployments[deployment_id] = d
                if own is not None:
                    self._store(d, own)
                self._note_holding(d)
                d.dirty = False
                self._rotation.append(deployment_id)
                if category is not None:
                    q = self.categories.setdefault(category, deque())
                    q.append(deployment_id)
                    if len(q) > CATEGORY_WINDOW:
                        self._forget(q.popleft())
                if self.learner is not None and d.population:
                    self.learner.record(deployment_id)
            else:
                self.rejected += 1
            # After the decision: a dry run of this arrival answers as it does.
            self._learn(at)
        return self._decision_dict(verdict)

    def _decide(self, d: Deployment, own: tuple[np.ndarray, np.ndarray] | None,
                tot_e0: np.ndarray, tot_v0: np.ndarray) -> policies.Verdict:
        if own is None:
            return policies.threshold(self.active + d.cores, self.threshold, self.capacity)
        tot_e = tot_e0 + own[0]
        if self.policy == "first_moment":
            return policies.first_moment(tot_e, own[0], self.threshold, self.capacity, self.marginal)
        return policies.second_moment(tot_e, tot_v0 + own[1], own[0], self.threshold, self.capacity, self.marginal)

    def _decision_dict(self, v: policies.Verdict) -> dict[str, Any]:
        return policies.decision_dict(v, self.grid, self.threshold)

    def _forget(self, deployment_id: str) -> None:
        d = self.deployments.get(deployment_id)
        if d is not None and not d.alive:
            del self.deployments[deployment_id]

    def scale_out(self, deployment_id: str, cores: int, at: float) -> dict[str, Any]:
        """All-or-nothing; granted whenever the cores are free, else an SLA failure."""
        at = self._check_time(at)
        cores = self._check_cores(cores)
        d = self._live(deployment_id)
        self.now = at
        d.advance(at)
        d.stats.scaleouts += 1
        d.stats.extra_cores += cores - 1
        self.requests += 1
        granted = self.active + cores <= self.capacity
        if granted:
            d.cores += cores
            self.active += cores
            self._note_holding(d)
        else:
            self.denied += 1
        if self.loop is not None:
            self.threshold = self.loop.observe(granted, self.threshold)
        self._mark(d)
        return {"decision": "granted" if granted else "denied", "active_cores": self.active,
                "sla_failure_rate": self.sla_failure_rate, "migrate": self._migrate(d)}

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

    def largest(self, k: int) -> list[dict[str, Any]]:
        """The k live deployments with the largest expected peaks, largest first (ties: the
        larger id, as _ranking's): the first is the one a cluster_overflow answer names.
        For looking at a life whose scale-outs fail (app.sim.moments.replay)."""
        if self.policy == "threshold":
            return []
        self._ranking()
        top = heapq.nlargest(k, ((peak, key) for key, peak in self._peaks.items()))
        return [{"deployment_id": key, "cores": self.deployments[key].cores, "expected_peak_cores": peak}
                for peak, key in top]

    def scale_in(self, deployment_id: str, cores: int, at: float) -> dict[str, Any]:
        """`cores` cores end their lifetime; at zero cores the deployment dies (D_n)."""
        at = self._check_time(at)
        cores = self._check_cores(cores)
        d = self._live(deployment_id)
        if cores > d.cores:
            raise errors.InvalidCores("cores", f"deployment has only {d.cores} cores")
        self.now = at
        d.advance(at)
        d.stats.core_deaths += cores
        d.cores -= cores
        self.active -= cores
        self._mark(d)
        if d.cores == 0:
            self._die(d)
        return {"active_cores": self.active, "deployment_cores": d.cores, "alive": d.alive}

    def shutdown(self, deployment_id: str, at: float) -> dict[str, Any]:
        """Spontaneous death: the maximum lifetime ran out (an Exp(Δμ) observation)."""
        at = self._check_time(at)
        d = self._live(deployment_id)
        self.now = at
        d.advance(at)
        d.stats.shutdowns += 1
        self.active -= d.cores
        d.cores = 0
        self._die(d)
        return {"active_cores": self.active, "alive": False}

    def _die(self, d: Deployment) -> None:
        d.alive = False
        if self.learner is not None and d.population:
            self.learner.freeze(d.id, d.stats)
        self._swap(d)
        if d.category is None or d.id not in self.categories.get(d.category, ()):
            del self.deployments[d.id]

    @property
    def sla_failure_rate(self) -> float:
        return self.denied / self.requests if self.requests else 0.0

    # ---- views and persistence -----------------------------------------------------------------
    # to_state() is JSON-able; from_state(to_state()) makes bit-identical future decisions.
    def safety(self) -> dict[str, Any]:
        """Is the cluster safe now (§2.2: the rule holds without any arrival), and the aggregate
        overflow bound per horizon (Markov for the first moment, Cantelli for the second)."""
        out: dict[str, Any] = {"utilization_now": self.active / self.capacity}
        if self.policy == "threshold":
            v = policies.threshold(self.active, self.threshold, self.capacity)
            return {**out, "safe": v.admitted, "overflow_bound_per_horizon": None}
        zero = np.zeros_like(self._tot_e)
        if self.policy == "first_moment":
            v = policies.first_moment(self._tot_e, zero, self.threshold, self.capacity, False)
            rows = self._tot_e / self.capacity
        else:
            v = policies.second_moment(self._tot_e, self._tot_v, zero, self.threshold,
                                       self.capacity, False)
            slack = self.capacity - self._tot_e
            with np.errstate(divide="ignore", invalid="ignore"):
                rows = np.nan_to_num(np.where(slack > 0, self._tot_v / (self._tot_v + slack**2),
                                              1.0), nan=0.0)
        return {**out, "safe": v.admitted, "overflow_bound_per_horizon": {
            horizon_label(h): float(rows[r].max()) for r, h in enumerate(self.grid.horizons)}}

    def learnt_lambda_factor(self) -> float:
        """λ's mean in the prior in use ÷ the declared one: 1 without a learner, before any
        adoption, and while a cautious start's λ is assumed rather than learnt."""
        learner = self.learner
        if learner is None or learner.learnt is None or learner.assumed:
            return 1.0
        return _mean(learner.learnt.lam) / _mean(learner.declared.lam)

    def learnt_mu_factor(self) -> float:
        """μ's mean in the prior in use ÷ the declared one (1 without a learner or before any
        adoption); a cautious start holds λ only, so μ's is what was learnt."""
        learner = self.learner
        if learner is None or learner.learnt is None:
            return 1.0
        return _mean(learner.learnt.mu) / _mean(learner.declared.mu)

    def growth_calibration(self) -> dict[str, Any] | None:
        """Whether the threshold in use was calibrated for the demand this cluster's
        deployments showed (None: the cluster does not learn, so nothing is known). Its
        calibration assumed the declared prior, or a growth-ladder step's multiple of its λ;
        `ratio` is how far the learnt prior lies past that: the learnt λ factor over the
        largest calibrated one, or the learnt cores' lifetime over the declared one (the
        learner moves μ only towards longer lives, for which nothing was calibrated), whichever
        is larger. Past the ladder's hysteresis the SLA's stated confidence no longer covers
        this workload; the closed loop may still hold τ, but nothing calibrated backs it (the
        first moment did not keep τ under λ × 2 at 500-5,000 cores in simulation,
        docs/moments.md)."""
        learner = self.learner
        if learner is None:
            return None
        # A ladder's factors rise (GrowthLadder), so its last is the largest.
        factors = [1.0] if self.ladder is None else [k for k, _ in self.ladder.steps]
        lam, mu = self.learnt_lambda_factor(), self.learnt_mu_factor()
        ratio = max(lam / factors[-1], 1.0 / mu)
        return {"learnt_lambda_factor": lam, "learnt_mu_factor": mu,
                "calibrated_lambda_factors": factors, "ratio": ratio,
                "beyond_calibration": ratio > GrowthLadder.HYSTERESIS}

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

    def describe(self) -> dict[str, Any]:
        live = sum(1 for d in self.deployments.values() if d.alive)
        peak = {}
        for r, h in enumerate(self.grid.horizons):
            peak[horizon_label(h)] = float(self._tot_e[r].max()) if self.policy != "threshold" else None
        return {
            **self.safety(),
            "policy": self.policy,
            "threshold": self.threshold,
            "marginal": self.marginal,
            "arrival_size_evidence": self.arrival_size_evidence,
            "closed_loop": None if self.loop is None else self.loop.describe(),
            "population_prior": None if self.learner is None else self.learner.describe(),
            "growth_ladder": None if self.ladder is None else self.ladder.to_dict(),
            "growth_calibration": self.growth_calibration(),
            "outgrowing": self.outgrowing(),
            "capacity": self.capacity,
            "now": self.now,
            "active_cores": self.active,
            "deployments": live,
            "admitted": self.admitted,
            "rejected": self.rejected,
            "scaleout_requests": self.requests,
            "scaleouts_denied": self.denied,
            "sla_failure_rate": self.sla_failure_rate,
            "peak_expected_cores": peak,
            "grid": {"horizons_hours": list(self.grid.horizons), "steps": self.grid.steps},
        }

    def deployment_view(self, deployment_id: str) -> dict[str, Any]:
        d = self.deployments.get(deployment_id)
        if d is None:
            raise errors.UnknownDeployment("deployment_id", f"unknown deployment {deployment_id!r}")
        b = self.belief(d)
        view: dict[str, Any] = {
            "id": d.id,
            "alive": d.alive,
            "cores": d.cores,
            "category": d.category,
            "born": d.born,
            "posterior": {
                name: {"shape": p[0], "rate": p[1], "mean": gamma_mean_var(p)[0], "var": gamma_mean_var(p)[1]}
                for name, p in (("lambda", b.lam), ("mu", b.mu), ("sigma", b.sig))
            },
            "statistics": d.stats.to_dict(),
            # What its next scale-out will be answered (from the moments the decisions use,
            # as of the last admission; the curves below are computed now).
            "migrate": self._migrate(d) if d.alive else None,
        }
        if d.alive and self.policy != "threshold":
            e, v = moments(d.cores, b, self.grid)
            view["expected_cores"] = {horizon_label(h): float(e[r, -1]) for r, h in enumerate(self.grid.horizons)}
            view["variance"] = {horizon_label(h): float(v[r, -1]) for r, h in enumerate(self.grid.horizons)}
        return view

    def to_state(self) -> dict[str, Any]:
        return {
            "version": 1,
            "kernel": ROUNDING,
            "config": {
                "capacity": self.capacity,
                "policy": self.policy,
                "threshold": self.threshold,
                "marginal": self.marginal,
                "horizons": list(self.grid.horizons),
                "steps": self.grid.steps,
                "population": self.population.to_dict(),
                "delta": self.delta,
                "nu": self.nu,
                "refresh_per_admit": self.refresh_per_admit,
                "arrival_size_evidence": self.arrival_size_evidence,
                "overflow_sd": self.overflow_sd,
            },
            "loop": None if self.loop is None else self.loop.to_dict(),
            "ladder": None if self.ladder is None else self.ladder.to_dict(),
            "learner": None if self.learner is None else self.learner.to_dict(),
            "reprior": list(self._reprior),
            "now": self.now,
            "active": self.active,
            "counters": [self.requests, self.denied, self.admitted, self.rejected, self._updates],
            "deployments": [
                {
                    "id": d.id, "cores": d.cores, "born": d.born, "last": d.last, "prior": d.prior.to_dict(),
                    "stats": d.stats.to_dict(), "category": d.category, "alive": d.alive, "dirty": d.dirty,
                    # The cached prior only where a learnt one replaced it since.
                    "cached": None if d.cached_inputs is None else [
                        d.cached_inputs[0], d.cached_inputs[1].to_dict(),
                        *([] if d.cached_inputs[2] == d.prior else [d.cached_inputs[2].to_dict()])],
                    "population": d.population,
                }
                for d in self.deployments.values()
            ],
            "categories": {k: list(v) for k, v in self.categories.items()},
            "dirty": list(self._dirty),
            "rotation": list(self._rotation),
            "totals": [self._tot_e.tolist(), self._tot_v.tolist()],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> MomentEngine:
        c = state["config"]
        eng = cls(
            c["capacity"], c["policy"], c["threshold"], c["marginal"], Grid(tuple(c["horizons"]), c["steps"]),
            Prior.from_dict(c["population"]), c["delta"], c["nu"], c["refresh_per_admit"],
            None if state.get("loop") is None else SlaLoop.from_dict(state["loop"]),
            # States from before the option: arrivals were never evidence.
            arrival_size_evidence=c.get("arrival_size_evidence", False),
            # States from before the option: the line was E's.
            overflow_sd=c.get("overflow_sd", 0.0),
        )
        if state.get("learner") is not None:
            eng.learner = PopulationLearner.from_dict(state["learner"])
        if state.get("ladder") is not None:  # states from before the ladder have none
            eng.ladder = GrowthLadder.from_dict(state["ladder"])
        eng._reprior = deque(state.get("reprior", ()))
        eng.now = state["now"]
        eng.active = state["active"]
        eng.requests, eng.denied, eng.admitted, eng.rejected, eng._updates = state["counters"]
        for row in state["deployments"]:
            d = Deployment(
                row["id"], row["cores"], row["born"], row["last"], Prior.from_dict(row["prior"]),
                Stats.from_dict(row["stats"]), row["category"], row["alive"], row["dirty"],
                population=row.get("population", False),
            )
            eng.deployments[d.id] = d
            if row["cached"] is not None:
                # Moments are a pure function of (cores, prior, stats): rebuild the cache from
                # the inputs it was computed from, bit for bit, without touching the totals.
                # States from before the learner hold no prior here: it was the deployment's.
                cores, stats = row["cached"][0], Stats.from_dict(row["cached"][1])
                base = Prior.from_dict(row["cached"][2]) if len(row["cached"]) > 2 else d.prior
                d.cached_inputs = (cores, stats, base)
                eng._cache[d.id] = moments(cores, posterior(base, stats, eng.delta, eng.nu), eng.grid, eng._variance)
        eng.categories = {k: deque(v) for k, v in state["categories"].items()}
        eng._dirty = dict.fromkeys(state["dirty"])
        eng._rotation = deque(state["rotation"])
        eng._tot_e = np.array(state["totals"][0], dtype=float).reshape(eng.grid.shape)
        eng._tot_v = np.array(state["totals"][1], dtype=float).reshape(eng.grid.shape)
        if state.get("kernel", ROUNDING) != ROUNDING:
            # Saved by a kernel that rounds differently: the caches above are this kernel's,
            # and totals that still hold the other's would carry the difference until the
            # next re-sum. (A state without a stamp is from before it: kept verbatim, as then.)
            eng._resum()
        return eng
