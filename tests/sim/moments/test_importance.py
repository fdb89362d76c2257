"""Importance sampling by badness buckets (app/sim/moments/importance.py) is unbiased: on a
small cluster where plain Monte Carlo can afford enough runs, the weighted estimates agree
with it, and the stratified estimator recovers a population mean exactly in expectation."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from app.sim.moments.calibrate import calibrate
from app.sim.moments.importance import badness, buckets, evaluate_is, stratified_mean, weights
from app.sim.moments.simulator import simulate

SIM = dict(capacity=200, years=1.0, arrival_rate=0.01, observations=0, steps=10)
THRESHOLD = 35.0  # zeroth moment: failures in about a third of the runs (one deployment can outgrow 200 cores)


@lru_cache(maxsize=1)
def _plain(n: int) -> tuple[np.ndarray, np.ndarray]:
    rows = [simulate("threshold", threshold=THRESHOLD, seed=s, **SIM) for s in range(n)]
    den = np.array([r["scaleout_failure_rate"] * r["scaleout_requests"] for r in rows])
    return den, np.array([badness(s, 200, 1.0, 0.01) for s in range(n)])


def test_stratified_mean_is_unbiased_for_a_known_population() -> None:
    den, bm = _plain(300)
    cuts = list(np.quantile(bm, (0.5, 0.9)))
    b = buckets(bm, cuts)
    probs = np.bincount(b, minlength=3) / len(b)  # the population is the nominal distribution
    rng = np.random.default_rng(0)
    est = []
    for _ in range(3000):  # 6 runs per bucket, drawn from p(r | I_i)
        idx = np.concatenate([rng.choice(np.flatnonzero(b == i), 6) for i in range(3)])
        est.append(stratified_mean(den[idx], b[idx], probs))
        assert np.isclose((weights(b[idx], probs) * den[idx]).sum(), est[-1])
    est_a = np.array(est)
    assert abs(est_a.mean() - den.mean()) < 4 * est_a.std() / np.sqrt(len(est_a))


def test_importance_sampled_estimates_agree_with_plain_monte_carlo() -> None:
    den, _ = _plain(300)
    p_mc, mean_mc = (den > 0).mean(), den.mean()
    assert 0.05 < p_mc < 0.6  # the case has a tail worth sampling
    reps = [evaluate_is("threshold", THRESHOLD, 12, 10_000 + 5_000 * k, pilot=400, **SIM) for k in range(12)]
    p_is = np.array([r["p_run_fails"] for r in reps])
    mean_is = np.array([float(np.dot(r["weights"], [x["scaleout_failure_rate"] * x["scaleout_requests"]
                                                    for x in r["runs"]])) for r in reps])
    se_p = np.sqrt(p_is.var(ddof=1) / len(reps) + p_mc * (1 - p_mc) / len(den))
    se_m = np.sqrt(mean_is.var(ddof=1) / len(reps) + den.var(ddof=1) / len(den))
    assert abs(p_is.mean() - p_mc) < 4 * se_p
    assert abs(mean_is.mean() - mean_mc) < 4 * se_m
    for r in reps:  # every bucket sampled, weights sum to one (an average over the nominal runs)
        assert min(r["buckets"]["runs"]) >= 4 and np.isclose(sum(r["weights"]), 1.0)


def test_calibration_with_importance_sampling_reports_its_buckets() -> None:
    res = calibrate("threshold", 0.05, 200, 1.0, 0.01, runs=6, iterations=3, seed=50, steps=10,
                    importance=True, pilot=300)
    assert len(res["search"]) == 3 and 0.0 <= res["confidence"] <= 1.0
    assert sum(res["importance_sampling"]["runs"]) == 6
    assert np.isclose(sum(res["importance_sampling"]["probs"]), 1.0)


def test_calibration_reports_every_life_as_it_finishes() -> None:
    # At 10,000 cores a candidate is 20-40 minutes of lives: the search must say how far it is
    # within one, for plain and importance-sampled runs alike, with counts that add up.
    for importance in (False, True):
        lines: list[str] = []
        res = calibrate("threshold", 0.05, 200, 1.0, 0.01, runs=4, iterations=2, seed=50, steps=10,
                        importance=importance, pilot=300, progress=lines.append)
        per_life = [ln for ln in lines if " life " in ln]
        assert len(per_life) == 2 * 4 and len(lines) == 2 * 4 + 2
        assert [ln.split(" life ")[1].split(" ")[0] for ln in per_life[:4]] == ["1/4", "2/4", "3/4", "4/4"]
        # A candidate's last line carries its pooled count; plain runs pool it as the summary
        # does (importance-sampled ones weight it back, which the raw count does not).
        last = per_life[-1].rsplit("so far ", 1)[1].rstrip(")").split(" of ")
        failed, requests = float(last[0]), int(last[1])
        assert requests > 0
        if not importance:
            assert np.isclose(failed / requests, res["search"][-1]["failure_rate"], rtol=0, atol=1e-3)


def test_rank_places_seeds_in_the_pilot_distribution(capsys) -> None:
    from app.sim.moments.importance import main, rank

    ref, rows = rank([3, 7], 200, 1.0, 0.01, pilot=50)
    assert len(ref) == 50
    for seed, bm, share in rows:
        assert bm == badness(seed, 200, 1.0, 0.01) and share == np.mean(ref < bm)
    assert main(["rank", "--capacity", "200", "--years", "1", "--arrival-rate", "0.01",
                 "--pilot", "50", "--seeds", "3,7"]) == 0
    out = capsys.readouterr().out
    assert f"seed 7: BM {rows[1][1]:.3f}, above {rows[1][2]:.1%} of the pilot" in out


def test_check_reports_failing_lives_by_bucket(tmp_path, capsys) -> None:
    from app.sim.moments.importance import main

    path = tmp_path / "check.json"
    assert main(["check", "--policy", "threshold", "--threshold", str(THRESHOLD), "--capacity", "200",
                 "--years", "1", "--arrival-rate", "0.01", "--pilot", "100", "--runs", "9",
                 "--seed", "20000", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    import json

    res = json.loads(path.read_text())
    failing = {r["seed"] for r in res["runs"] if r["scaleout_failure_rate"] > 0}
    assert failing  # about a third of lives fail at THRESHOLD (above), so the listing is exercised
    listed = set()
    for i in range(3):
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(f"bucket {i} "))
        assert f"{res['bucket'].count(i)} lives" in line
        listed |= {int(s) for s in line.split("[")[1].rstrip("]").split(",") if s.strip()}
    assert listed == failing
    assert f"weighted failure rate {res['failure_rate']:.3g}" in out


def test_badness_draws_arrivals_from_a_declared_population_prior() -> None:
    """A calibration for a cluster's own prior stratifies on that prior's arrivals: Table 1
    spelled out is Table 1, and deployments that grow twice as fast look worse."""
    from app.policies.moments.priors import Prior
    from app.sim.moments.importance import badness

    table1 = Prior().to_dict()
    twice = {**table1, "lambda": [table1["lambda"][0], table1["lambda"][1] / 2]}
    for seed in range(5):
        assert badness(seed, 2000, 0.5, 0.1, table1) == badness(seed, 2000, 0.5, 0.1)
    worse = [badness(s, 2000, 0.5, 0.1, twice) > badness(s, 2000, 0.5, 0.1) for s in range(10)]
    assert sum(worse) >= 8


def test_runs_go_only_to_buckets_the_pilot_saw(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Tied badness values (every life alike) leave all but the top bucket empty in the pilot:
    # the runs go there, none is searched for in a bucket no seed falls in.
    from app.sim.moments import importance

    monkeypatch.setattr(importance, "pilot_bm", lambda *a, **k: np.zeros(100))
    monkeypatch.setattr(importance, "badness", lambda seed, *scale: 0.0)
    importance._STRATA.clear()
    cuts, probs, chosen, bucket, have = importance.strata(10, 5, 100, (0.5, 0.9, 0.99),
                                                          (300, 1.0, 0.1, None))
    assert list(probs) == [0, 0, 0, 1] and have.tolist() == [0, 0, 0, 5]
    assert chosen == [10, 11, 12, 13, 14] and bucket.tolist() == [3] * 5
    importance._STRATA.clear()
