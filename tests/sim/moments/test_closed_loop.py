"""The closed-loop comparison's per-cell figures (app/sim/moments/closed_loop.py)."""
from __future__ import annotations

from app.sim.moments.closed_loop import pooled


def life(seed: int, failed: int, requests: int) -> dict:
    return {"seed": seed, "scaleout_failure_rate": failed / requests, "scaleout_requests": requests,
            "late": {"denied": failed, "requests": requests}, "utilization": 0.8, "threshold": 0.09}


def test_a_cell_says_how_many_lives_failed_and_how_many_were_over_tau_on_their_own() -> None:
    # Pooled, 25 failures in 1,000,000 scale-outs meet τ = 1e-4; yet one cluster of the four
    # failed 20 of its 100,000 (2e-4): an operator's one cluster is a life, not the pool.
    runs = [life(1, 0, 300_000), life(2, 5, 300_000), life(3, 20, 100_000), life(4, 0, 300_000)]
    cell = pooled(runs, 1e-4)
    assert cell["failure_rate"] == 25 / 1_000_000
    assert (cell["lives"], cell["lives_failing"], cell["lives_over_sla"]) == (4, 2, 1)
    # A life exactly at τ is not over it.
    assert pooled([life(1, 10, 100_000)], 1e-4)["lives_over_sla"] == 0


def test_the_one_sd_line_names_the_largest_deployment_before_expected_cores_reach_capacity() -> None:
    from app.policies.moments.engine import MomentEngine
    from app.sim.moments.closed_loop import one_sd_line

    engines = [MomentEngine(1000, policy="second_moment", threshold=0.5) for _ in range(2)]
    for eng in engines:
        for i, cores in enumerate((40, 90, 10)):
            assert eng.admit(f"d{i}", cores, at=float(i))["decision"] == "admitted"
    plain, sd = engines
    one_sd_line(sd)
    largest = plain.largest(1)[0]["deployment_id"]
    assert largest == "d1"

    def totals(eng: MomentEngine, e: float, v: float) -> None:
        # The cluster as the line sees it; a new version, as a recompute would leave it.
        eng._tot_e[:] = 0.0
        eng._tot_v[:] = 0.0
        eng._tot_e[2, 7], eng._tot_v[2, 7] = e, v
        eng._updates += 1

    for eng in engines:  # E 900, sd 50: neither line is reached
        totals(eng, 900.0, 2500.0)
        assert eng._overflow_candidate() is None
    for eng in engines:  # E 900, sd 100: E + sd is at capacity, E is not
        totals(eng, 900.0, 10_000.0)
    assert plain._overflow_candidate() is None and sd._overflow_candidate() == largest
    for eng in engines:  # E at capacity: both lines name it
        totals(eng, 1000.0, 0.0)
        assert eng._overflow_candidate() == largest
