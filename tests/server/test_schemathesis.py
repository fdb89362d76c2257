"""schemathesis against the committed openapi/openapi.json on a running multi-process server on
Postgres: every check, all phases (examples, coverage, fuzzing, stateful), fixed seed and a
bounded number of examples (tests/schemathesis.toml). Zero failures means no server error, no
response that breaks its documented schema, status code or content type, and no invalid input
accepted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.live import LiveServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.postgres
def test_schemathesis_finds_nothing(postgres_url, tmp_path):
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",)) as server:
        cmd = [sys.executable, "-m", "schemathesis.cli",
               "--config-file", str(ROOT / "tests" / "schemathesis.toml"),
               "run", str(ROOT / "openapi" / "openapi.json"), "--url", server.url,
               "-H", f"Authorization: Bearer {server.key}", "--no-color",
               "--report", "junit", "--report-dir", str(tmp_path)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    summary = run.stdout[run.stdout.find("SUMMARY"):] if "SUMMARY" in run.stdout else run.stdout
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "generated" in summary and " 0 passed" not in summary, summary
