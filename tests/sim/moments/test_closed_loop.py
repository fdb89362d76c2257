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


def test_the_migrate_controllers_name_their_line_and_the_others_get_the_declarations() -> None:
    """service_migrate_e, _half and _sd run the engine at overflow_sd 0, 0.5 and 1 (the same
    life otherwise); every other controller gets what a declaration naming none gets."""
    from app.policies.moments.sla import default_overflow_sd
    from app.sim.moments.closed_loop import cell_life

    seen: dict[str, float] = {}
    for name in ("service_migrate_e", "service_migrate_half", "service_migrate_sd", "service_migrate",
                 "service"):
        job = ("second_moment", 500, 1e-4, None, name, 7, 0.02, 0.025, 1.0, 60, 0.0, False)
        cell_life(job, watch=lambda eng, name=name: seen.__setitem__(name, eng.overflow_sd))
    assert seen == {"service_migrate_e": 0.0, "service_migrate_half": 0.5, "service_migrate_sd": 1.0,
                    "service_migrate": default_overflow_sd("second_moment", 500, True, False, False, False),
                    "service": default_overflow_sd("second_moment", 500, True, False, False, False)}
