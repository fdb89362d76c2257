"""app.sim.moments.replay: one closed_loop life again, with each failed scale-out explained."""
from __future__ import annotations

import json

from app.sim.moments import replay as replay_module
from app.sim.moments.closed_loop import cell_life
from app.sim.moments.derive import default_arrival_rate
from app.sim.moments.replay import SUMMARY, replay

# A 500-core life whose first deployments grow twice as fast as Table 1 says (seed 4014): one of them is expected to need most of the cluster after ~1,800
# hours, and, kept, it fails scale-outs in its third year.
CAPACITY, SEED = 500, 4014


def _check_rows(rows: list[dict], capacity: int) -> None:
    for row in rows:
        peaks = [r["expected_peak_cores"] for r in row["largest"]]
        assert peaks == sorted(peaks, reverse=True)
        if row["decision"] == "denied":  # the request did not fit: that is what failed
            assert row["active_cores"] + row["asked"] > capacity
        assert 0.0 <= row["overflow_bound"] <= 1.0
        if row["expected_cluster_share"] >= 1.0:  # Cantelli's bound is 1 where E reaches c
            assert row["overflow_bound"] == 1.0
        if row["migrate"] == "outgrowing_cluster":
            assert row["expected_peak_cores"] >= 0.5 * capacity
        elif row["migrate"] == "cluster_overflow":  # at the line: E, or E + overflow_sd * sd
            line = row["overflow_line_share"]
            assert (row["expected_cluster_share"] if line is None else line) >= 1.0
            assert line is None or line >= row["expected_cluster_share"]
            assert row["largest"][0]["deployment_id"] == row["deployment_id"]


def test_a_replayed_life_decides_as_closed_loop_did_and_lists_each_failure() -> None:
    """The replay's summary is closed_loop's own run of the same life; one row per failure,
    each a request that did not fit; the migrate answers the service gives without anyone
    following them are there too."""
    rows, summary = replay("second_moment", CAPACITY, "service", SEED)
    job = ("second_moment", CAPACITY, 1e-4, None, "service", SEED, 3.0, default_arrival_rate(CAPACITY),
           2.0, 600, 0.0, False)
    original = cell_life(job)
    assert summary == {k: original[k] for k in SUMMARY}  # watching changes no decision
    failed = round(summary["scaleout_failure_rate"] * summary["scaleout_requests"])
    assert failed > 0, "the life was chosen for its failures"
    assert sum(r["decision"] == "denied" for r in rows) == failed
    # The service alone is told, and keeps answering, migrate for the deployment that fills it.
    told = [r for r in rows if r["migrate"] is not None]
    assert told and {r["migrate"] for r in told} == {"outgrowing_cluster"}
    _check_rows(rows, CAPACITY)


def test_following_the_answer_moves_the_deployment_on_the_first_one(capsys) -> None:  # type: ignore[no-untyped-def]
    replay_module.main(["--capacity", str(CAPACITY), "--controller", "service_migrate",
                        "--seed", str(SEED), "--years", "1"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rows, summary = lines[:-1], lines[-1]["summary"]
    assert summary["moved"] == 1 and summary["moved_by_reason"] == {"outgrowing_cluster": 1}
    [row] = [r for r in rows if r["migrate"] is not None]  # moved at its first answer
    assert row["largest"][0]["deployment_id"] == row["deployment_id"]
    _check_rows(rows, CAPACITY)
