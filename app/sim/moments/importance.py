"""Importance sampling of seeded runs by a badness measure (App. D, a documented variant).

Scale-out failures live in the tail of the runs: at a tuned threshold most 3-year lives see
none. App. D draws runs more often from "bad" buckets of a cheap heuristic badness measure
BM(r) and weights them back. We keep its two ingredients, BM on the pre-drawn arrivals and
buckets of BM, but sample the buckets by *stratification* instead of the paper's rejection
scheme: with P_i the nominal probability of bucket I_i and n_i runs drawn from p(r | I_i),

    Ê[f] = Σ_i P_i · (1/n_i) Σ_{r ∈ run_i} f(r),

which is importance sampling with q(r) = p(r | I_i) n_i / n (the paper's q(r) = p(r | I_i) q(I_i)
with q(I_i) chosen directly rather than through redraw probabilities). P_i is estimated from a
pilot of BM values on seeds disjoint from the simulated ones, so E[P̂_i] = P_i independently of
the bucket means and the estimator stays unbiased for any BM: a poor BM costs variance, not
bias. BM needs a seed to be a deterministic function of that seed only.

BM (our reading of Def. 5): replay the run's arrivals (the same draws as simulator.simulate's
arrival stream) through a simplified cluster that knows every deployment's true (λ, μ, σ):
each month's arrivals come at the month's start and are admitted one by one while
Σ i^x < 1.1 c, a deployment stays for its expected maximum lifetime 1/(Δμ), and
i^x(age) = E + sqrt(99 E (1 + σ)) with E = C e^{-μ age} + m (1 - e^{-μ age}),
m = λμ^ν(1+σ)/μ its M/M/∞ mean size (the variance is a heuristic Poisson-with-batches one).
BM = max over months of Σ i^x / c: it grows past 1.1 when the admitted deployments grow.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from app.policies.moments.formulas import HOURS_PER_YEAR
from app.policies.moments.priors import POPULATION_DELTA, POPULATION_NU, Prior
from app.sim.dispatch import dispatch
from app.sim.moments.runs import life_progress, lives
from app.sim.moments.simulator import draw_parameters

CANTELLI_99 = np.sqrt((1 - 0.01) / 0.01)


def badness(seed: int, capacity: int, years: float, arrival_rate: float,
            population_prior: dict[str, Any] | None = None) -> float:
    """BM of the run `seed` would be (cheap: no moments, no core-level events)."""
    truth = None if population_prior is None else Prior.from_dict(population_prior)
    arrival_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[0])
    end = years * HOURS_PER_YEAR
    t = arrival_rng.exponential(1.0 / arrival_rate)
    rows = []  # (arrival, C, μ, σ, m) of every arrival, drawn as simulate draws them
    while t <= end:
        nxt = t + arrival_rng.exponential(1.0 / arrival_rate)
        lam, mu, sig = draw_parameters(arrival_rng, truth)
        c0 = 1 + int(arrival_rng.poisson(sig))
        rows.append((t, c0, mu, sig, lam * mu**POPULATION_NU * (1.0 + sig) / mu))
        t = nxt
    arr = np.array(rows, dtype=float).reshape(-1, 5)
    month = HOURS_PER_YEAR / 12
    admitted = np.zeros(len(arr), dtype=bool)
    worst = 0.0
    for k in range(int(np.ceil(end / month))):
        now = k * month
        c0, mu, sig, m = arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4]
        age = now - arr[:, 0]
        here = admitted & (age < 1.0 / (POPULATION_DELTA * mu))
        decay = np.exp(-mu[here] * age[here])
        e = c0[here] * decay + m[here] * (1.0 - decay)
        total = float((e + CANTELLI_99 * np.sqrt(e * (1.0 + sig[here]))).sum())
        worst = max(worst, total)
        for j in np.flatnonzero((arr[:, 0] >= now) & (arr[:, 0] < now + month)):
            i_x = c0[j] + CANTELLI_99 * np.sqrt(c0[j] * (1.0 + sig[j]))
            if total + i_x < 1.1 * capacity:
                admitted[j] = True
                total += i_x
    return worst / capacity


def _bm(job: tuple[Any, ...]) -> float:
    return badness(*job)


def pilot_bm(start: int, pilot: int, scale: tuple[Any, ...], workers: int = 1,
             scheduler: str | None = None) -> np.ndarray:
    """BM of the seeds start, start + 1, … (`pilot` of them) at scale (capacity, years, rate[,
    population prior])."""
    return np.array(list(dispatch(_bm, [(start + k, *scale) for k in range(pilot)], workers, scheduler)))


def buckets(values: np.ndarray, cuts: Sequence[float]) -> np.ndarray:
    """Index of the BM bucket of each value: I_0 = (-inf, cuts[0]), ..., I_k = [cuts[-1], inf)."""
    return np.searchsorted(np.asarray(cuts), values, side="right")


def stratified_mean(f: np.ndarray, bucket: np.ndarray, probs: Sequence[float]) -> float:
    """Ê[f] = Σ_i P_i mean(f | bucket i); a bucket with P_i > 0 must have runs."""
    out = 0.0
    for i, p in enumerate(probs):
        if p > 0:
            sel = bucket == i
            if not sel.any():
                raise ValueError(f"bucket {i} has probability {p:g} but no runs")
            out += p * float(f[sel].mean())
    return out


def weights(bucket: np.ndarray, probs: Sequence[float]) -> np.ndarray:
    """Per-run weight P_i / n_i, so Σ_r w_r f(r) = stratified_mean(f)."""
    counts = np.bincount(bucket, minlength=len(probs))
    return np.array([probs[b] / counts[b] for b in bucket])


# The strata of a (seed, runs, pilot, quantiles, scale): the same for every threshold tried at
# it, so a search or a held-out check computes them once per process.
_STRATA: dict[str, tuple[Any, ...]] = {}


def strata(seed: int, runs: int, pilot: int, quantiles: tuple[float, ...], scale: tuple[Any, ...],
           workers: int = 1, scheduler: str | None = None) -> tuple[Any, ...]:
    """(cuts, bucket probabilities, chosen seeds, their buckets, lives per bucket): the pilot's
    BM cut at `quantiles`, and the first seeds from `seed` on whose BM falls in each bucket,
    `runs` spread evenly over the buckets."""
    key = json.dumps([seed, runs, pilot, quantiles, scale], sort_keys=True)
    if key in _STRATA:
        return _STRATA[key]
    bm = pilot_bm(seed + 10**6, pilot, scale, workers, scheduler)
    cuts = list(np.quantile(bm, quantiles))
    probs = np.bincount(buckets(bm, cuts), minlength=len(cuts) + 1) / pilot
    # Runs go evenly to the buckets the pilot saw: tied BM values (short lives, small clusters)
    # leave some cuts equal and their buckets empty, and no run could be drawn from those.
    seen = np.flatnonzero(probs > 0)
    want = np.zeros(len(probs), dtype=int)
    want[seen] = runs // len(seen)
    want[seen[: runs - want.sum()]] += 1
    chosen: list[int] = []
    found: list[int] = []
    have = np.zeros(len(probs), dtype=int)
    s = seed
    while (have < want).any():  # BM is cheap; scan seeds until every bucket has its share
        b = int(buckets(np.array([badness(s, *scale)]), cuts)[0])
        if have[b] < want[b]:
            chosen.append(s)
            found.append(b)
            have[b] += 1
        s += 1
        if s - seed > 200 * runs + pilot:
            raise RuntimeError("a BM bucket is too rare for the runs asked; use other quantiles")
    _STRATA[key] = (cuts, probs, chosen, np.array(found, dtype=int), have)
    return _STRATA[key]


def evaluate_is(policy: str, threshold: float, runs: int, seed: int, pilot: int = 2000,
                quantiles: Sequence[float] = (0.5, 0.9), workers: int = 1, scheduler: str | None = None,
                on_life: Callable[[int, dict[str, Any]], None] | None = None,
                **sim: Any) -> dict[str, Any]:
    """Failure rate and utilisation at `threshold` from `runs` lives spread evenly over the BM
    buckets (cut at the pilot's `quantiles`), weighted back to the nominal distribution.

    Seeds: pilot on [seed + 10^6, seed + 10^6 + pilot), runs searched from `seed` upward
    (the first seeds whose BM falls in each bucket), so pilot and runs are disjoint."""
    scale = (sim["capacity"], sim["years"], sim["arrival_rate"], sim.get("population_prior"))
    cuts, probs, chosen, bucket, have = strata(seed, runs, pilot, tuple(quantiles), scale,
                                               workers, scheduler)
    out = lives([(policy, threshold, k, sim) for k in chosen], workers, scheduler, on_life)
    w = weights(bucket, probs)
    den = np.array([r["scaleout_failure_rate"] * r["scaleout_requests"] for r in out])
    req = np.array([r["scaleout_requests"] for r in out], dtype=float)
    util = np.array([r["utilization"] for r in out])
    # Stratified standard error: Var = Σ P_i² s_i² / n_i (a bucket with one run adds nothing).
    var = sum(p**2 * util[bucket == i].var(ddof=1) / (bucket == i).sum()
              for i, p in enumerate(probs) if (bucket == i).sum() > 1)
    return {
        "threshold": threshold,
        "failure_rate": float((w * den).sum() / (w * req).sum()) if req.sum() else 0.0,  # ratio of IS means
        "utilization": float((w * util).sum()),
        "utilization_se": float(np.sqrt(var)),
        "p_run_fails": float((w * (den > 0)).sum()),
        "buckets": {"cuts": cuts, "probs": probs.tolist(), "runs": have.tolist()},
        "runs": out,
        "weights": w.tolist(),
        "bucket": bucket.tolist(),
    }


def confidence_text(value: float | None, digits: int = 2) -> str:
    """A confidence as printed: "n/a" where no scale-out was requested (nothing to judge by)."""
    return "n/a (no scale-out requested)" if value is None else f"{value:.{digits}f}"


def confidence_is(res: dict[str, Any], sla: float, seed: int = 0, draws: int = 2000) -> float | None:
    """Share of stratified bootstrap resamples (runs resampled within their bucket, weighted
    back) whose failure rate is ≤ sla: the importance-sampled analogue of calibrate.confidence.
    None where no life requested a scale-out."""
    den = np.array([r["scaleout_failure_rate"] * r["scaleout_requests"] for r in res["runs"]])
    req = np.array([r["scaleout_requests"] for r in res["runs"]], dtype=float)
    if req.sum() == 0:
        return None
    bucket = np.array(res["bucket"])
    probs = res["buckets"]["probs"]
    rng = np.random.default_rng(seed)
    ok = 0
    for _ in range(draws):
        idx = np.concatenate([rng.choice(np.flatnonzero(bucket == i), (bucket == i).sum())
                              for i in range(len(probs)) if (bucket == i).any()])
        w = weights(bucket[idx], probs)
        ok += (w * den[idx]).sum() <= sla * max((w * req[idx]).sum(), 1e-300)
    return ok / draws


# ---- does BM find the lives that fail? ------------------------------------------------------
# Importance sampling pays only as far as BM ranks the failing lives high. `rank` places given
# seeds (e.g. the failing lives of a fresh-seed check) in BM's distribution over a pilot;
# `check` evaluates one threshold with importance-sampled lives and shows, bucket by bucket,
# where the failing lives fell.

def rank(seeds: Sequence[int], capacity: int, years: float, arrival_rate: float, pilot: int,
         pilot_seed: int = 10**6, workers: int = 1) -> tuple[np.ndarray, list[tuple[int, float, float]]]:
    """BM of a pilot (seeds pilot_seed …) and, per seed, (seed, BM, share of the pilot below it)."""
    scale = (capacity, years, arrival_rate)
    ref = pilot_bm(pilot_seed, pilot, scale, workers)
    return ref, [(s, v, float(np.mean(ref < v))) for s, v in ((s, badness(s, *scale)) for s in seeds)]


def main(argv: Sequence[str] | None = None) -> int:
    import argparse
    import json
    import sys

    p = argparse.ArgumentParser(prog="python -m app.sim.moments.importance", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, text in (("rank", "where seeds fall in BM's distribution"),
                       ("check", "one threshold, importance-sampled lives, failures per BM bucket")):
        q = sub.add_parser(name, help=text)
        q.add_argument("--capacity", type=int, required=True)
        q.add_argument("--years", type=float, default=3.0)
        q.add_argument("--arrival-rate", type=float, default=None, help="default: capacity / 20,000 per hour")
        q.add_argument("--pilot", type=int, default=2000)
        q.add_argument("--workers", type=int, default=1)
    r = sub.choices["rank"]
    r.add_argument("--seeds", required=True, help="comma list")
    c = sub.choices["check"]
    c.add_argument("--policy", required=True, choices=("threshold", "first_moment", "second_moment"))
    c.add_argument("--threshold", type=float, required=True)
    c.add_argument("--runs", type=int, default=96)
    c.add_argument("--seed", type=int, required=True, help="lives are the first seeds from here in each bucket")
    c.add_argument("--quantiles", default="0.5,0.9", help="BM bucket cuts, as quantiles of the pilot")
    c.add_argument("--sla", type=float, default=1e-4)
    c.add_argument("--json", type=str, default=None, help="write the lives and weights here")
    args = p.parse_args(argv)
    rate = args.arrival_rate if args.arrival_rate is not None else args.capacity / 20_000
    if args.cmd == "rank":
        seeds = [int(s) for s in args.seeds.split(",")]
        ref, rows = rank(seeds, args.capacity, args.years, rate, args.pilot, workers=args.workers)
        qs = (0.5, 0.9, 0.95, 0.99)
        print(f"BM over {args.pilot} pilot seeds at {args.capacity} cores: "
              + ", ".join(f"q{q:g} {v:.3f}" for q, v in zip(qs, np.quantile(ref, qs))))
        for s, v, share in rows:
            print(f"  seed {s}: BM {v:.3f}, above {share:.1%} of the pilot")
        return 0

    quantiles = [float(x) for x in args.quantiles.split(",")]
    res = evaluate_is(args.policy, args.threshold, args.runs, args.seed, pilot=args.pilot,
                      quantiles=quantiles, workers=args.workers,
                      on_life=life_progress(lambda m: print(m, file=sys.stderr, flush=True),
                                            args.policy, args.threshold, args.runs),
                      capacity=args.capacity, years=args.years, arrival_rate=rate, observations=0)
    bucket = np.array(res["bucket"])
    failed = np.array([x["scaleout_failure_rate"] * x["scaleout_requests"] for x in res["runs"]])
    print(f"{args.policy} threshold {args.threshold:g} at {args.capacity} cores: weighted failure rate "
          f"{res['failure_rate']:.3g}, P(a life fails) {res['p_run_fails']:.3f}, utilisation "
          f"{res['utilization']:.1%} ± {res['utilization_se']:.1%}, confidence τ={args.sla:g} holds "
          f"{confidence_text(confidence_is(res, args.sla, args.seed), 3)}")
    for i, prob in enumerate(res["buckets"]["probs"]):
        sel = bucket == i
        seeds = [res["runs"][k]["seed"] for k in np.flatnonzero(sel & (failed > 0))]
        print(f"  bucket {i} (P = {prob:.3f}): {int(sel.sum())} lives, {len(seeds)} failing {seeds}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(res, fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
