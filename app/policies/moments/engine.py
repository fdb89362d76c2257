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

from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from app.policies.moments import errors, policies
from app.policies.moments.deployment import Deployment
from app.policies.moments.formulas import Belief

# The compiled moments: what the engine caches, persists and rebuilds must come from one
# implementation (formulas.py is the reference it is tested against).
from app.policies.moments.kernel import (
    COMPILED,
    MomentKernel,
    NotFinite,
    retotal,
)
from app.policies.moments.learning import (
    MAX_FACTOR,
    REPRIOR_PER_ADMIT,
    PopulationLearner,
)
from app.policies.moments.options import GATE_NONE_MEETS, MomentOptions, loop_bounds
from app.policies.moments.outgrowing import OutgrowingWatch
from app.policies.moments.priors import (
    Prior,
    Stats,
    posterior,
    resolve_prior,
)
from app.policies.moments.sla import GrowthLadder, SlaLoop
from app.policies.moments.snapshot import Snapshots
from app.policies.moments.views import EngineViews

RESUM_EVERY = 4096
CATEGORY_WINDOW = 200  # most recent members of a category used for its prior
CATEGORY_MIN = 5
# A newcomer's own moments depend only on (cores, belief); without declared priors every
# arrival has the population belief, so a handful of initial sizes cover almost all of them.
NEWCOMER_CACHE = 256


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


class MomentEngine(OutgrowingWatch, EngineViews, Snapshots):
    """One cluster's admission decisions and the moments behind them (see the module)."""

    def __init__(self, options: MomentOptions, kernel: MomentKernel = COMPILED) -> None:
        self.options = options
        self.kernel = kernel
        self.capacity = options.capacity
        self.policy = options.policy
        # Moved by the closed loop and the growth ladder while the cluster runs.
        self.threshold: float = options.threshold  # type: ignore[assignment]
        self.marginal = options.marginal
        # A reason every deployment is refused for (options.gate), and the derivation a
        # threshold_calibrated event brought (None: the declaration's).
        self.gate = options.gate
        self.calibration: dict[str, Any] | None = None
        self.loop = None if options.loop is None else SlaLoop(
            options.loop.sla, options.loop.lo, options.loop.hi)
        # The threshold of each calibrated growth, followed as the learner adopts priors.
        self.ladder = None if options.ladder is None else GrowthLadder(list(options.ladder))
        self.grid = options.grid
        self.population = options.population
        self.delta = options.delta
        self.nu = options.nu
        self.refresh_per_admit = options.refresh_per_admit
        # Count an arrival's size as one observation of its σ (priors.py): right where an
        # arrival's size is drawn like a scale-out's, as in the §2.1 simulator; the paper's
        # engine does not (it knows nothing of an arrival "except for the initial number of
        # cores", and reads nothing into that).
        self.arrival_size_evidence = options.arrival_size_evidence
        # The cluster_overflow line: the cluster's cores are expected to outgrow it where
        # E + overflow_sd * sd of them reaches capacity on the grid (0: E itself; the first
        # moment has no variances, so E there whatever this says).
        self.overflow_sd = options.overflow_sd
        # Empirical-Bayes population prior (learning.py); None keeps the declared one (the paper).
        self.learner = PopulationLearner(self.population) if options.learns else None
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
        # Inside dry_runs_at_once(): the totals a dry run refreshed, by instant (None: off).
        self._dry_totals: dict[float, tuple[np.ndarray, np.ndarray]] | None = None
        # Only the second moment rule reads variances; the first moment's cache holds E and
        # zeros (half the work per deployment, E unchanged bit for bit).
        self._variance = self.policy == "second_moment"
        self._watch_outgrowing()
        self._start_cautious(options.cautious_growth)

    # ---- validation helpers: raise before touching anything --------------------------------
    def _check_time(self, at: float) -> float:
        return errors.check_time(self.now, at)

    _check_cores = staticmethod(errors.check_cores)

    def check_arrival(self, deployment_id: str, cores: int, at: float) -> tuple[float, int]:
        """What ``admit`` refuses of a deployment's id, cores and time; its time and cores."""
        at = self._check_time(at)
        cores = self._check_cores(cores)
        if not isinstance(deployment_id, str) or not deployment_id:
            raise errors.MomentsError("deployment_id", "deployment_id must be a non-empty string")
        if deployment_id in self.deployments:
            raise errors.DuplicateDeployment("deployment_id", f"deployment {deployment_id!r} already exists")
        return at, cores

    def check_scale_out(self, deployment_id: str, cores: int, at: float
                        ) -> tuple[float, int, Deployment]:
        """What ``scale_out`` refuses; its time, cores and the live deployment."""
        at = self._check_time(at)
        cores = self._check_cores(cores)
        return at, cores, self._live(deployment_id)

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
                new = self.kernel.moments(d.cores, self.belief(d), self.grid, self._variance)
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
        totals are computed on copies and nothing is stored (and, inside dry_runs_at_once,
        computed once per instant).
        """
        if dry_run and self._dry_totals is not None and at in self._dry_totals:
            return self._dry_totals[at]
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
        if self._dry_totals is not None:
            self._dry_totals[at] = (tot_e, tot_v)
        return tot_e, tot_v

    @contextmanager
    def dry_runs_at_once(self) -> Iterator[None]:
        """Dry-run admissions made inside share one refresh per instant: the totals a dry run
        decides on depend on the engine and the instant only, not on the arrival, and each
        refresh recomputes every deployment changed since the last admission (a bisection
        over sizes, admissible.py, took 36 ms at 20,000 cores with 20 of them changed, 3 ms
        sharing it). Only dry runs belong inside: an event would leave the totals stale."""
        self._dry_totals = {}
        try:
            yield
        finally:
            self._dry_totals = None

    def _moments_at(self, todo: list[Deployment], at: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each deployment's moments once its exposure reaches `at`, computed on copies of
        their statistics, each in arrays of its own (the same bits as one at a time)."""
        if not todo:
            return {}
        ghosts = [_exposed(d, at) for d in todo]
        try:
            each = self.kernel.moments_each([g.cores for g in ghosts], [self.belief(g) for g in ghosts], self.grid,
                                self._variance)
        except NotFinite as exc:
            raise _not_finite(f"deployments.{ghosts[exc.index].id}") from exc
        return {g.id: m for g, m in zip(ghosts, each)}

    def _newcomer(self, cores: int, belief: Belief) -> tuple[np.ndarray, np.ndarray]:
        key = (cores, belief)
        hit = self._newcomers.get(key)
        if hit is None:
            try:
                hit = self.kernel.moments(cores, belief, self.grid, self._variance)
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

    def _start_cautious(self, factor: float) -> None:
        """Believe λ × `factor` at the declared threshold until the cluster's own deployments
        tell (learning.py, ``start_cautious``): if they reject it for slower growth, the
        ordinary learner takes over; if they reject the declared prior for faster growth, the
        learnt prior with λ × `factor` as a floor under it, and the ladder. Only for a
        cluster that learns its prior (one that does not starts as declared)."""
        learner = self.learner
        if learner is None or factor == 1.0:
            return
        if not 1.0 < factor <= MAX_FACTOR:
            raise errors.MomentsError("policy", f"a cautious start's growth factor must lie in (1, {MAX_FACTOR:g}]")
        learner.start_cautious(factor)

    def admits_the_smallest_arrival(self) -> bool:
        """Whether a 1-core deployment on the population prior would be admitted now (a dry
        run). Into the empty cluster that is the easiest admission there will ever be (totals
        only grow with deployments): refused there, every arrival on the population prior is
        refused for good, no evidence comes, and nothing ends a cautious start."""
        return self.admit("cautious-start-probe", 1, self.now, dry_run=True)["decision"] == "admitted"

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
        at, cores = self.check_arrival(deployment_id, cores, at)
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
        if self.gate is not None:
            verdict = policies.Verdict(False, self.gate, verdict.worst, verdict.expected,
                                       verdict.bound, False)
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
        # A gated engine's threshold is a placeholder no decision rests on: none is shown.
        return policies.decision_dict(v, self.grid, None if self.gate else self.threshold)

    def calibrated(self, threshold: float | None, derivation: dict[str, Any]) -> dict[str, Any]:
        """A calibration of this cluster's declaration landed (a logged event): decide on
        `threshold` from now on, the closed loop within the derivation's bounds and its window
        afresh, and no growth ladder (the table's steps were calibrated for another τ or
        prior than this). None: no candidate met τ, and nothing is admitted, ever."""
        self.calibration = dict(derivation)
        if threshold is None:
            self.gate = GATE_NONE_MEETS
            return {"gate": self.gate, "threshold": None}
        self.gate = None
        self.threshold = float(threshold)
        self.ladder = None
        if self.loop is not None:  # the bounds a declaration with this derivation gets
            bounds = loop_bounds(True, self.loop.sla, derivation, self.threshold)
            assert bounds is not None
            self.loop.lo, self.loop.hi = bounds.lo, bounds.hi
            self.loop.window_requests = self.loop.window_denied = 0
        return {"gate": None, "threshold": self.threshold}

    def _forget(self, deployment_id: str) -> None:
        d = self.deployments.get(deployment_id)
        if d is not None and not d.alive:
            del self.deployments[deployment_id]

    def scale_out(self, deployment_id: str, cores: int, at: float) -> dict[str, Any]:
        """All-or-nothing; granted whenever the cores are free, else an SLA failure."""
        at, cores, d = self.check_scale_out(deployment_id, cores, at)
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
