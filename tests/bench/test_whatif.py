"""app.bench.whatif at a small scale: the log is written, a what-if of it runs in the service's
child beside the driven decisions, and both phases and the run are reported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bench.test_calibration import PHASE_KEYS
from tests.conftest import FreshDatabase, _require_postgres
from tests.live import ROOT


@pytest.mark.postgres
def test_one_round_replays_the_log_beside_the_decisions(tmp_path):
    _require_postgres()
    out = tmp_path / "what_if.json"
    with FreshDatabase() as db:
        run = subprocess.run(
            [sys.executable, "-m", "app.bench.whatif", "--database-url", db.url,
             "--events", "1500", "--rounds", "1", "--duration", "3", "--warm-up", "1",
             "--rate", "20", "--json", str(out)],
            check=False, cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "round 1 what-if" in run.stderr  # progress as it runs
    result = json.loads(out.read_text())
    assert result["events"] == 1500 and result["rate"] == 20
    (done,) = result["runs"]
    assert done["status"] == "done" and done["events"] == 1500 and done["seconds"] > 0
    quiet, busy = result["phases"]
    assert (quiet["phase"], busy["phase"]) == ("quiet", "what-if")
    assert set(quiet) == PHASE_KEYS and set(busy) == PHASE_KEYS | {"p99_vs_quiet"}
    assert quiet["child_cpu_share"] == 0 and quiet["child_nice"] == []
    # The child was seen at nice 19 and its CPU counted, though it ended with the phase.
    assert busy["child_cpu_share"] > 0 and busy["child_nice"] == [19]
    assert busy["answered"] > 0 and busy["p99_ms"] >= busy["p50_ms"] > 0
