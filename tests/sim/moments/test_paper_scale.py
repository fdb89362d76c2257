"""The paper-scale report: paired gains, intervals, and a doc block that replaces itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.sim.moments import paper_scale as ps


def _row(label: str, seed: int, util: float, denied: int = 0, requests: int = 1000) -> dict:  # type: ignore[type-arg]
    return {"label": label, "seed": seed, "utilization": util, "scaleout_failure_rate": denied / requests,
            "scaleout_requests": requests, "threshold": 1.0, "cpu_s": 2.0}


def test_gain_is_paired_on_common_seeds_and_intervals_cover() -> None:
    rows = [_row("threshold", s, 0.50 + 0.1 * s) for s in range(4)]
    rows += [_row("first_moment", s, 0.62 + 0.1 * s, denied=s) for s in range(3)]  # seed 3 unfinished
    out = ps.summarise(rows)
    gain, half = out["first_moment"]["gain"]
    assert np.isclose(gain, 12.0) and half < 1e-9  # the same +12 pp on every shared seed
    assert out["first_moment"]["paired_runs"] == 3 and out["first_moment"]["runs_with_failures"] == 2
    lo, hi = out["first_moment"]["fail_ci"]
    assert lo < out["first_moment"]["fail"] == 3 / 3000 < hi
    # A Fig. 1 point is paired with its policy at 0 observations, on the seeds both have.
    rows += [_row("first_moment/50", s, 0.67 + 0.1 * s) for s in (0, 1, 5)]
    out = ps.summarise(rows)
    change, half = out["first_moment/50"]["vs_none"]
    assert np.isclose(change, 5.0) and half < 1e-9 and out["first_moment"]["vs_none"] is None
    # Seed 5 has no 0-observation life: it counts in the point's utilisation, not in the change.
    assert "| first_moment | 50 | 3 | figure only | 87.0 ± 65.7 | 5.0 ± 0.0 | 0.00e+00 | 0/3 |" in ps.render(out)


def test_block_replaces_the_previous_one_and_keeps_the_rest(tmp_path: Path) -> None:
    doc = tmp_path / "moment.md"
    doc.write_text("# Title\n\nscaled-down part\n")
    summary = ps.summarise([_row("threshold", 0, 0.5), _row("second_moment", 0, 0.7)])
    ps.write_block(doc, ps.render(summary))
    ps.write_block(doc, ps.render(summary))
    text = doc.read_text()
    assert text.count(ps.BEGIN) == 1 and text.endswith("scaled-down part\n")
    assert "no 3-year life of first_moment finished" in text
    ps.plot(summary, tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 1000
