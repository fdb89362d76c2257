"""The calibration-beside-the-decision-path benchmark (issue #56) at a tiny scale: it runs end to
end against a real `headroom serve` on Postgres, writes its JSON and plot, and a calibrating
phase sees the background child's CPU at nice 19 while a quiet one sees none."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import FreshDatabase, _require_postgres
from tests.live import ROOT

PHASE_KEYS = {"round", "phase", "seconds", "requests", "answered", "decisions_per_s", "p50_ms",
              "p99_ms", "errors", "error_codes", "retried", "child_cpu_share", "child_nice",
              "child_alive_at_end", "server_cpu_share", "machine_busy_cores", "load1",
              "p99_ms_by_window"}


@pytest.mark.postgres
def test_one_round_measures_the_child_beside_the_decisions(tmp_path):
    _require_postgres()
    out, png = tmp_path / "calibration.json", tmp_path / "calibration.png"
    with FreshDatabase() as db:
        run = subprocess.run(
            [sys.executable, "-m", "app.bench.calibration", "--database-url", db.url,
             "--rounds", "1", "--duration", "3", "--warm-up", "1", "--rate", "20",
             "--json", str(out), "--plot", str(png)],
            check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "round 1 calibrating" in run.stderr  # progress as it runs
    result = json.loads(out.read_text())
    assert result["rate"] == 20 and result["workers"] == result["calibration_workers"] == 1
    assert result["driven"]["threshold"] is not None  # in the table: decided at once
    quiet, calibrating = result["phases"]
    assert (quiet["phase"], calibrating["phase"]) == ("quiet", "calibrating")
    assert set(quiet) == PHASE_KEYS and set(calibrating) == PHASE_KEYS | {"p99_vs_quiet"}
    for phase in (quiet, calibrating):
        assert phase["answered"] > 0 and phase["p99_ms"] >= phase["p50_ms"] > 0
        assert phase["server_cpu_share"] > 0
        # One p99 per 5-s window of the phase (3 s: one window).
        assert len(phase["p99_ms_by_window"]) == 1 and phase["p99_ms_by_window"][0] > 0
    assert quiet["child_cpu_share"] == 0 and quiet["child_nice"] == []
    assert calibrating["child_cpu_share"] > 0 and calibrating["child_nice"] == [19]
    assert calibrating["child_alive_at_end"]
    assert [c["round"] for c in result["calibrating"]["rounds"]] == [1]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "x quiet" in run.stdout  # the table
