"""In-process latency of moment-based admission decisions (goal: p99 <= 10 ms).

Setup: a second-moment engine with the default 5 horizons x 600 steps and `--deployments`
active deployments (population prior, a few events each so posteriors differ), capacity
large enough that admissions are not all rejected. Timed: `admit(..., dry_run=True)`, which
does everything a real admission does (refresh of changed and stalest deployments, the new
deployment's moments, the policy over the grid) without keeping the result, so the engine
state is the same for every sample. Between samples `--events` scale-outs/ins touch random
deployments, so each admission also recomputes those (the realistic case for a service).

    .venv/bin/python -m app.bench.moments [--deployments 1000] [--samples 300] [--events 2] [--json]

With `--life` it instead times whole simulated lives of the §5.2 setup (default c = 20,000,
1 arrival/h, 3 years, 5 horizons x 600 steps, Table 2 thresholds) per policy, in CPU seconds
of this process (time.process_time, so other load on the machine does not count):

    .venv/bin/python -m app.bench.moments --life [--years 3] [--seeds 1] [--policies ...]

With `--recomputes` each life also says how many deployments' moments it recomputed, at
admitted and at rejected arrivals, and how many of those had an event since their last
recompute (the rest: the drift refresh and adopted priors). The counting engine overrides
two of the engine's methods, so its CPU figure is not a clean timing.

With `--kernel` it times the moment computation alone, the compiled kernel against
formulas.py's numpy code, on the batches a c = 20,000 cluster really computes (captured from
the first 0.05 years of a second-moment life): best of 3 interleaved, CPU time per deployment.

With `--outgrowing` it times `engine.outgrowing()` (what /state and the metrics gauge call
on every moment response) on the same `--deployments` engine: after a response that changed no
cached moments (a scale-out only marks its deployment), and after a real admission (which
recomputes the dirty and stalest deployments and stores the newcomer), beside the admission's
own time in the same loop.

With `--calibration` it times one small calibration (first moment, 12 lives) end to end, wall
clock, on `--workers` local processes and then on a distributed.LocalCluster of as many
single-threaded worker processes, and checks both found the same threshold.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

from app.policies.moments import MomentEngine, formulas, kernel
from app.policies.moments.formulas import Grid
from app.policies.moments.kernel import COMPILED, MomentKernel
from app.policies.moments.options import MomentOptions


def build(n: int, policy: str, seed: int) -> tuple[MomentEngine, np.random.Generator]:
    rng = np.random.default_rng(seed)
    eng = MomentEngine(MomentOptions(10**7, policy,
                                     threshold=0.5 if policy == "second_moment" else 10**7))
    t = 0.0
    for i in range(n):
        t += 0.01
        eng.admit(f"d{i}", int(rng.integers(1, 8)), t)
        eng.scale_out(f"d{i}", int(rng.integers(1, 4)), t)
    eng.admit("warm", 1, t, dry_run=True)  # flush the dirty set once
    return eng, rng


class CountingEngine(MomentEngine):
    """An engine that counts its recomputes (--recomputes): every deployment _refresh swaps
    is one, split by the arrival's decision, and the dirty ones (an event since their last
    recompute) apart from the drift refresh and adopted priors."""

    def __init__(self, options: MomentOptions, kernel: MomentKernel = COMPILED) -> None:
        super().__init__(options, kernel)
        self.counts: Counter[str] = Counter()

    def _refresh(self, at: float, dry_run: bool = False) -> tuple[np.ndarray, np.ndarray]:
        if not dry_run:
            self.counts["event_marked"] += len(self._dirty)
        return super()._refresh(at, dry_run)

    def admit(self, *args, **kwargs) -> dict:  # type: ignore[no-untyped-def]
        before = self._updates
        answer = super().admit(*args, **kwargs)
        key = "at_admitted" if answer["decision"] == "admitted" else "at_rejected"
        self.counts[key] += self._updates - before
        return answer


def _reference_each(cores, beliefs, grid, variance=True):  # type: ignore[no-untyped-def]
    """formulas.py's batch, each deployment's moments in arrays of its own (as the kernel's)."""
    e, v = formulas.moments_batch(cores, beliefs, grid, variance)
    return [(e[i].copy(), v[i].copy()) for i in range(len(cores))]


# The engine on formulas.py's numpy expressions instead of the compiled kernel.
REFERENCE = MomentKernel(formulas.moments, _reference_each)


def life(policies: list[str], capacity: int, years: float, rate: float, steps: int, seeds: int,
         reference: bool = False, recomputes: bool = False) -> list[dict]:
    """CPU seconds per simulated life (the unit of every calibration and reproduction run).
    reference: the engine computes moments with formulas.py's numpy expressions instead of
    the compiled kernel (the baseline of the kernel, in the same checkout and run)."""
    from app.sim.moments.simulator import simulate

    moments_kernel = REFERENCE if reference else COMPILED
    out = []
    for policy in policies:
        for seed in range(seeds):
            counter = CountingEngine(MomentOptions(capacity, policy, grid=Grid(steps=steps)),
                                     moments_kernel) if recomputes else None
            start = time.process_time()
            res = simulate(policy, capacity, years, rate, 0, seed, steps=steps, engine=counter,
                           kernel=moments_kernel)
            cpu = time.process_time() - start
            row = {"policy": policy, "moments": "numpy" if reference else "kernel", "seed": seed,
                   "cpu_s": round(cpu, 2), "admitted": res["admitted"],
                   "rejected": res["rejected"], "utilization": round(res["utilization"], 4)}
            if recomputes:
                row["recomputes"] = dict(counter.counts)  # type: ignore[union-attr]
            print(json.dumps(row), flush=True)
            out.append(row)
    return out


def kernel_vs_numpy(batches: int = 200) -> dict:
    from app.sim.moments.simulator import simulate

    captured: list[tuple[list[int], list]] = []

    def capture(cores, beliefs, grid, variance=True):  # type: ignore[no-untyped-def]
        if len(captured) < 2 * batches:
            captured.append((list(cores), list(beliefs)))
        return COMPILED.moments_each(cores, beliefs, grid, variance)

    simulate("second_moment", 20000, 0.05, 1.0, 0, 0, threshold=0.112,
             kernel=MomentKernel(COMPILED.moments, capture))
    work = captured[batches:]  # past the first admissions, whose batches are tiny
    rows = sum(len(c) for c, _ in work)
    grid = formulas.Grid()
    out: dict = {"deployments": rows}
    for variance in (True, False):
        best = {"kernel": float("inf"), "numpy": float("inf")}
        for _ in range(3):  # interleaved, CPU time: other load on the machine hits both alike
            for name, fn in (("kernel", kernel.moments_batch), ("numpy", formulas.moments_batch)):
                start = time.process_time()
                for cores, beliefs in work:
                    fn(cores, beliefs, grid, variance)
                best[name] = min(best[name], time.process_time() - start)
        for name, t in best.items():
            out[f"{name}_{'e_var' if variance else 'e_only'}_ms"] = round(t / rows * 1e3, 4)
    print(json.dumps(out), flush=True)
    return out


def vmath(size: int = 1201, reps: int = 10000) -> dict:
    """ns per element of the kernel's exp and log against the C library's, in compiled loops
    over arrays of one grid row's length (best of 5, same process)."""
    import math

    from numba import njit

    from app.policies.moments.kernel import vexp, vlog

    @njit(error_model="numpy")
    def ours(f, x, out, scratch, reps):  # type: ignore[no-untyped-def]
        for _ in range(reps):
            f(x, out, x.size, scratch)

    @njit(error_model="numpy")
    def libm_exp(x, out, reps):  # type: ignore[no-untyped-def]
        for _ in range(reps):
            for i in range(x.size):
                out[i] = math.exp(x[i])

    @njit(error_model="numpy")
    def libm_log(x, out, reps):  # type: ignore[no-untyped-def]
        for _ in range(reps):
            for i in range(x.size):
                out[i] = math.log(x[i])

    x = np.random.default_rng(0).uniform(-700.0, 5.0, size)
    pos = np.exp(x)
    out, scratch = np.empty(size), np.empty(size, dtype=np.int64)
    cases = {"exp_kernel": lambda r: ours(vexp, x, out, scratch, r), "exp_libm": lambda r: libm_exp(x, out, r),
             "log_kernel": lambda r: ours(vlog, pos, out, scratch, r), "log_libm": lambda r: libm_log(pos, out, r)}
    res: dict = {}
    for name, run in cases.items():
        run(1)  # compile
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            run(reps)
            best = min(best, time.perf_counter() - start)
        res[f"{name}_ns"] = round(best / reps / size * 1e9, 3)
    print(json.dumps(res), flush=True)
    return res


def calibration(workers: int) -> dict:
    """Wall seconds of the same calibration dispatched locally and through Dask."""
    import os

    from distributed import LocalCluster

    from app.sim.moments.calibrate import calibrate

    cfg = {"policy": "first_moment", "sla": 0.01, "capacity": 500, "years": 0.25, "arrival_rate": 0.025,
           "runs": 4, "iterations": 3, "seed": 0}
    out: dict = {"workers": workers, "load_before": os.getloadavg()[0]}
    start = time.perf_counter()
    local = calibrate(**cfg, workers=workers)
    out["local_s"] = round(time.perf_counter() - start, 1)
    start = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, scheduler_port=0, dashboard_address=None) as cluster:
        out["cluster_start_s"] = round(time.perf_counter() - start, 1)
        dask = calibrate(**cfg, scheduler=cluster.scheduler_address)
    out["dask_s_including_cluster_start"] = round(time.perf_counter() - start, 1)
    out["same_threshold"] = dask["threshold"] == local["threshold"]
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out), flush=True)
    return out


def outgrowing(n: int, samples: int, events: int) -> dict:
    """p50/p99 ms of outgrowing() when nothing changed vs right after an admission."""
    eng, rng = build(n, "second_moment", 1)
    t = eng.now
    unchanged, after_admit, admit = [], [], []
    eng.outgrowing()
    for k in range(samples):
        for _ in range(events):
            t += 0.001
            eng.scale_out(f"d{int(rng.integers(n))}", 1, t)
        start = time.perf_counter()
        eng.outgrowing()
        unchanged.append(time.perf_counter() - start)
        t += 0.001
        start = time.perf_counter()
        eng.admit(f"probe{k}", 1, t)
        admit.append(time.perf_counter() - start)
        start = time.perf_counter()
        eng.outgrowing()
        after_admit.append(time.perf_counter() - start)

    def pct(xs: list[float]) -> dict:
        ms = np.array(xs) * 1e3
        return {"p50_ms": float(np.percentile(ms, 50)), "p99_ms": float(np.percentile(ms, 99))}

    return {"deployments": n, "samples": samples, "events_between": events,
            "outgrowing_unchanged": pct(unchanged), "outgrowing_after_admit": pct(after_admit),
            "admit": pct(admit)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--life", action="store_true", help="time whole simulated lives instead")
    ap.add_argument("--policies", default="threshold,first_moment,second_moment")
    ap.add_argument("--capacity", type=int, default=20000)
    ap.add_argument("--years", type=float, default=3.0)
    ap.add_argument("--arrival-rate", type=float, default=1.0)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--reference", action="store_true",
                    help="with --life: moments by formulas.py's numpy code, not the compiled kernel")
    ap.add_argument("--recomputes", action="store_true",
                    help="with --life: count the recomputes per life, by decision and by cause")
    ap.add_argument("--kernel", action="store_true", help="time the compiled moments against numpy's")
    ap.add_argument("--calibration", action="store_true", help="time a small calibration, local vs Dask")
    ap.add_argument("--outgrowing", action="store_true",
                    help="time engine.outgrowing() (the /state list and gauge) beside an admission")
    ap.add_argument("--vmath", action="store_true", help="time the kernel's exp and log against the C library's")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--deployments", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--events", type=int, default=2)
    ap.add_argument("--policy", default="second_moment")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.calibration:
        calibration(args.workers)
        return
    if args.vmath:
        vmath()
        return
    if args.outgrowing:
        out = outgrowing(args.deployments, args.samples, args.events)
        print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
        return
    if args.kernel:
        kernel_vs_numpy()
        return
    if args.life:
        life(args.policies.split(","), args.capacity, args.years, args.arrival_rate, args.steps, args.seeds,
             args.reference, args.recomputes)
        return
    eng, rng = build(args.deployments, args.policy, 1)
    t = eng.now
    lat = []
    for k in range(args.samples):
        for _ in range(args.events):
            t += 0.001
            eng.scale_out(f"d{int(rng.integers(args.deployments))}", 1, t)
        t += 0.001
        start = time.perf_counter()
        eng.admit(f"probe{k}", 2, t, dry_run=True)
        lat.append(time.perf_counter() - start)
        eng._refresh(t)  # commit the refresh outside the timing so the next sample starts clean
    ms = np.array(lat) * 1e3
    out = {
        "deployments": args.deployments, "policy": args.policy, "grid": [len(eng.grid.horizons), eng.grid.steps],
        "events_between": args.events, "samples": args.samples,
        "p50_ms": float(np.percentile(ms, 50)), "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max()),
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
