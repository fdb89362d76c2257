"""The tenants simulation (app/sim/tenants.py): the same stream run plain, under quotas and
with gangs, each run's books balanced against the stream."""

from __future__ import annotations

from app.sim.tenants import make_stream, simulate


def test_every_job_of_the_stream_is_placed_or_refused_once_in_each_run():
    out = simulate("first_fit", servers=6, n_tenants=3, jobs=600, load=1.2, gang_share=0.3,
                   gang_size=3, seed=4)
    stream = make_stream(6, ["t0", "t1", "t2"], out["demand"], 600, 1.2, 0.3, 3, 4)
    jobs = sum(len(members) for _, members, _ in stream.items)
    plain, tenants, gangs = out["runs"]
    for run in out["runs"]:
        assert run["placed"] + run["refused_quota"] + run["refused_cluster"] == jobs, run
    assert plain["preempted"] == plain["refused_quota"] == 0
    assert all(t["mean_dominant_share"] is None for t in plain["tenants"].values())
    # Over capacity, the heavier tenant borrows and the others reclaim from it.
    assert tenants["preempted"] > 0
    assert max(tenants["tenants"], key=lambda t: tenants["tenants"][t]["preempted"]) == "t0"
    for run in out["runs"]:
        assert sum(t["placed"] for t in run["tenants"].values()) == run["placed"]
    # A gang is one decision for its members: fewer decisions than arrivals of jobs.
    assert gangs["decisions"] < tenants["decisions"]


def test_a_stream_is_the_same_for_a_seed():
    a = make_stream(4, ["a", "b"], [1, 1], 200, 0.8, 0.2, 2, 7)
    b = make_stream(4, ["a", "b"], [1, 1], 200, 0.8, 0.2, 2, 7)
    assert [(t, [(j.job_id, j.job_type, j.tenant) for j in m], life) for t, m, life in a.items] == \
        [(t, [(j.job_id, j.job_type, j.tenant) for j in m], life) for t, m, life in b.items]
