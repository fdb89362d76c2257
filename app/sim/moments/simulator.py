"""Simulator of the moment paper's generative model (§2.1, Table 1) driving MomentEngine.

Continuous time in hours. Deployments arrive as a Poisson process of `arrival_rate` per hour.
Each draws λ, μ, σ from the Table 1 Gamma priors and:
  * starts with C = 1 + Pois(σ) cores (the paper does not give the initial size; we use the
    scale-out size distribution, so an arrival looks like a first scale-out, and an engine
    with arrival_size_evidence may count it as one observation of σ),
  * scales out at rate λμ^ν by 1 + Pois(σ) cores, all or nothing, denied if the cores are
    not free (an SLA failure, counted by the engine),
  * loses each core after an Exp(μ) lifetime and dies at zero cores,
  * shuts down entirely after an Exp(Δμ) maximum lifetime.
With `growth` ≠ 1 the true scale-out rate is growth·λμ^ν while the engine's beliefs keep Table 1.
Rejected deployments simply go elsewhere (§2.1 fn. 3). With `observations = k > 0` the engine
receives, with each arrival, k draws from each of its true processes as pseudo-observations (§6).
All randomness comes from numpy Generators spawned from SeedSequence(seed).
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from app.policies.moments import MomentEngine
from app.policies.moments.formulas import (
    DEFAULT_HORIZONS,
    DEFAULT_STEPS,
    HOURS_PER_YEAR,
    Grid,
)
from app.policies.moments.kernel import COMPILED, MomentKernel
from app.policies.moments.options import MomentOptions
from app.policies.moments.priors import (
    POPULATION_DELTA,
    POPULATION_NU,
    PSEUDO_MAX,
    Prior,
)

ARRIVE, SCALE_OUT, CORE_DEATH, MAX_LIFE = 0, 1, 2, 3


def draw_parameters(rng: np.random.Generator, prior: Prior | None = None) -> tuple[float, float, float]:
    """A deployment's true (λ, μ, σ) from the population prior (Table 1's unless given)."""
    prior = prior or Prior()
    lam = rng.gamma(prior.lam[0], 1.0 / prior.lam[1])
    mu = rng.gamma(prior.mu[0], 1.0 / prior.mu[1])
    sig = rng.gamma(prior.sig[0], 1.0 / prior.sig[1])
    # Gamma(0.31) puts mass near 0; keep rates representable (a core living 10^6 years is immortal).
    return max(lam, 1e-12), max(mu, 1e-12), max(sig, 0.0)


def pseudo_observations(rng: np.random.Generator, lam: float, mu: float, sig: float, k: int) -> dict[str, Any] | None:
    """k draws from each true process, as sufficient statistics (§6's 'observations')."""
    if k <= 0:
        return None
    rate = lam * mu**POPULATION_NU

    def hours(draws: np.ndarray) -> float:
        # μ is floored at 1e-12, so 50 lifetimes can sum to ~5e13 h, past what the engine
        # accepts (PSEUDO_MAX); capping keeps such a process immortal over any horizon here.
        return float(min(draws.sum(), PSEUDO_MAX))

    return {
        "observations": {
            "core_deaths": k,
            "core_time": hours(rng.exponential(1.0 / mu, k)),
            "shutdowns": k,
            "age_time": hours(rng.exponential(1.0 / (POPULATION_DELTA * mu), k)),
            "scaleouts": k,
            "scaleout_time": hours(rng.exponential(1.0 / rate, k)),
            "extra_cores": float(rng.poisson(sig, k).sum()),
        }
    }


def simulate(
    policy: str,
    capacity: int,
    years: float,
    arrival_rate: float,
    observations: int,
    seed: int,
    threshold: float | None = None,
    steps: int = DEFAULT_STEPS,  # the paper's 600: its t and ρ were calibrated on that grid
    horizons: tuple[float, ...] = DEFAULT_HORIZONS,
    marginal: bool = True,
    engine: MomentEngine | None = None,
    growth: float = 1.0,
    measure_from: float = 0.0,
    parameters: tuple[float, float, float] | None = None,
    arrival_size_evidence: bool = False,
    population_prior: dict[str, Any] | None = None,
    move_outgrowing: bool = False,
    follow_migrate: bool = False,
    kernel: MomentKernel = COMPILED,
) -> dict[str, Any]:
    """One life of the model. `growth` multiplies every deployment's true scale-out rate while
    the engine keeps Table 1's priors: growth 2 is "deployments grow twice as fast as the
    priors say" (priors mis-specified). `measure_from` (years): the failures counted from then
    on are reported apart (`late`), to see a closed loop after it had time to learn.
    `parameters` (λ, μ, σ): every deployment has these true rates instead of Table 1 draws —
    a population without Table 1's heavy tails, where failures come from aggregate load.
    `arrival_size_evidence`: the engine counts each arrival's size as an observation of its σ
    (right in this model, where it is drawn like a scale-out's); a given `engine` must agree.
    `population_prior` ({"lambda", "mu", "sigma"}: [shape, rate]) replaces Table 1 as the
    population the deployments' true parameters are drawn from and, unless an `engine` is
    given, as the engine's prior: a cluster that declared its own (policy.population_prior).
    `move_outgrowing`: after each arrival's decision, every deployment the engine lists as
    outgrowing (engine.outgrowing: expected to need half the cluster on its own, or the
    largest while the cluster is expected to outgrow itself) leaves, as
    an operator acting on the alert would move it to a larger cluster (a departure, which
    the engine sees as a shutdown); its later scale-outs are not this cluster's. `moved`
    counts them. `follow_migrate`: instead, a deployment leaves when its own scale-out is
    answered "migrate" (engine.scale_out's `migrate`: the same list, heard in-band at its next
    scale-out rather than read from /state after each admission); counted in `moved` too.
    `moved_by_reason` splits `moved` by the engine's reason ("outgrowing_cluster",
    "cluster_overflow")."""
    # Separate streams (common random numbers): the arrival process and each arrival's
    # parameters do not depend on the policy or on how many prior observations are drawn.
    truth = None if population_prior is None else Prior.from_dict(population_prior)
    eng = engine or MomentEngine(MomentOptions(
        capacity, policy, threshold, marginal, Grid(horizons, steps),
        population=truth or Prior(), arrival_size_evidence=arrival_size_evidence), kernel)
    if eng.arrival_size_evidence != arrival_size_evidence:
        raise ValueError("the engine given and arrival_size_evidence disagree")
    life = Life(eng, seed, years * HOURS_PER_YEAR, arrival_rate, truth, parameters, growth,
                observations, move_outgrowing, follow_migrate)
    start = life.run(measure_from * HOURS_PER_YEAR)
    return {
        "policy": policy,
        "utilization": life.core_hours / (capacity * life.end),
        "scaleout_failure_rate": eng.sla_failure_rate,
        "scaleout_requests": eng.requests,
        "admitted": eng.admitted,
        "rejected": eng.rejected,
        "threshold": eng.threshold,
        "closed_loop": None if eng.loop is None else eng.loop.to_dict(),
        "late": {"from_years": measure_from, "requests": eng.requests - start[0],
                 "denied": eng.denied - start[1]},
        "growth": growth,
        "observations": observations,
        "arrival_size_evidence": arrival_size_evidence,
        "population_prior": population_prior,
        "moved": life.moved,
        "moved_by_reason": life.moved_by_reason,
        "capacity": capacity,
        "years": years,
        "arrival_rate": arrival_rate,
        "seed": seed,
    }


class Life:
    """One life's event queue and the true state of its deployments, driving `eng`: the
    simulator's side of the model, where the engine sees only events."""

    def __init__(self, eng: MomentEngine, seed: int, end: float, arrival_rate: float,
                 truth: Prior | None, parameters: tuple[float, float, float] | None,
                 growth: float, observations: int, move_outgrowing: bool,
                 follow_migrate: bool) -> None:
        self.eng, self.end, self.arrival_rate, self.truth = eng, end, arrival_rate, truth
        self.parameters, self.growth, self.observations = parameters, growth, observations
        self.move_outgrowing, self.follow_migrate = move_outgrowing, follow_migrate
        self.arrival_rng, self.obs_rng, self.rng = (
            np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
        self.heap: list[tuple[float, int, int, int]] = []
        self.seq = 0
        self.params: dict[int, tuple[float, float, float]] = {}
        self.cores: dict[int, int] = {}
        # Core-death events are resampled whenever cores change: only the latest counts.
        self.death_version: dict[int, int] = {}
        self.core_hours = 0.0
        self.active = 0
        self.arrivals = 0
        self.moved = 0
        self.moved_by_reason: dict[str, int] = {}

    def push(self, t: float, kind: int, dep: int) -> None:
        if t <= self.end:
            heapq.heappush(self.heap, (t, self.seq, kind, dep))
            self.seq += 1

    def schedule_core_death(self, i: int, t: float) -> None:
        self.death_version[i] = self.seq
        if self.cores[i] > 0:
            self.push(t + self.rng.exponential(1.0 / (self.cores[i] * self.params[i][1])),
                      CORE_DEATH, i)

    def schedule_scale_out(self, i: int, t: float) -> None:
        lam, mu, _ = self.params[i]
        self.push(t + self.rng.exponential(1.0 / (self.growth * lam * mu**POPULATION_NU)),
                  SCALE_OUT, i)

    def move(self, i: int, t: float, reason: str) -> None:
        """Deployment i leaves for a larger cluster (the engine sees a shutdown); its pending
        events lapse. `reason`: the engine's, counted apart (which rule moved it)."""
        self.eng.shutdown(str(i), t)
        self.active -= self.cores.pop(i)
        self.moved += 1
        self.moved_by_reason[reason] = self.moved_by_reason.get(reason, 0) + 1

    def run(self, late_from: float) -> tuple[int, int]:
        """Every event to the end; returns (requests, denied) when measuring started."""
        eng = self.eng
        self.push(self.arrival_rng.exponential(1.0 / self.arrival_rate), ARRIVE, -1)
        before: tuple[int, int] | None = None
        last_t = 0.0
        while self.heap:
            t, s, kind, i = heapq.heappop(self.heap)
            if before is None and t >= late_from:
                before = (eng.requests, eng.denied)
            self.core_hours += self.active * (t - last_t)
            last_t = t
            if kind == ARRIVE:
                self.arrive(t)
            elif i not in self.cores:
                continue  # event of a deployment that already died
            elif kind == SCALE_OUT:
                self.scale_out(i, t)
            elif kind == CORE_DEATH:
                if self.death_version[i] == s:
                    self.core_death(i, t)
            else:  # MAX_LIFE
                eng.shutdown(str(i), t)
                self.active -= self.cores.pop(i)
        self.core_hours += self.active * (self.end - last_t)
        return before or (eng.requests, eng.denied)  # nothing happened after measure_from

    def arrive(self, t: float) -> None:
        self.push(t + self.arrival_rng.exponential(1.0 / self.arrival_rate), ARRIVE, -1)
        lam, mu, sig = self.parameters or draw_parameters(self.arrival_rng, self.truth)
        c0 = 1 + int(self.arrival_rng.poisson(sig))
        prior = pseudo_observations(self.obs_rng, lam, mu, sig, self.observations)
        i = self.arrivals
        self.arrivals += 1
        if self.eng.admit(str(i), c0, t, prior=prior)["decision"] == "admitted":
            self.params[i] = (lam, mu, sig)
            self.cores[i] = c0
            self.active += c0
            self.schedule_scale_out(i, t)
            self.push(t + self.rng.exponential(1.0 / (POPULATION_DELTA * mu)), MAX_LIFE, i)
            self.schedule_core_death(i, t)
        # The list lags the decisions' totals by nothing: both come from this refresh.
        while self.move_outgrowing and (
                listed := (self.eng.outgrowing() or {}).get("deployments")):
            for row in listed:
                self.move(int(row["deployment_id"]), t, row["reason"])

    def scale_out(self, i: int, t: float) -> None:
        size = 1 + int(self.rng.poisson(self.params[i][2]))
        answer = self.eng.scale_out(str(i), size, t)
        if answer["decision"] == "granted":
            self.cores[i] += size
            self.active += size
            self.schedule_core_death(i, t)
        if self.follow_migrate and answer["migrate"] is not None:
            self.move(i, t, answer["migrate"]["reason"])
            return
        self.schedule_scale_out(i, t)

    def core_death(self, i: int, t: float) -> None:
        self.eng.scale_in(str(i), 1, t)
        self.cores[i] -= 1
        self.active -= 1
        if self.cores[i] == 0:
            del self.cores[i]
        else:
            self.schedule_core_death(i, t)
