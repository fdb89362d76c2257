"""openapi/openapi.json is generated from the app and must not go stale."""

from __future__ import annotations

from pathlib import Path

from app.cli import main, render_openapi

ROOT = Path(__file__).resolve().parents[1]


def test_committed_openapi_matches_the_app():
    committed = (ROOT / "openapi" / "openapi.json").read_text()
    assert committed == render_openapi(), "run `headroom openapi` and commit the result"


def test_openapi_check_command_detects_staleness(tmp_path, capsys):
    stale = tmp_path / "openapi.json"
    stale.write_text("{}\n")
    assert main(["openapi", "--check", "--output", str(stale)]) == 1
    assert main(["openapi", "--output", str(stale)]) == 0
    assert main(["openapi", "--check", "--output", str(stale)]) == 0


def test_every_operation_has_a_stable_id():
    import json

    doc = json.loads(render_openapi())
    ops = [op for path in doc["paths"].values() for op in path.values()]
    ids = [op.get("operationId") for op in ops]
    assert all(ids) and len(set(ids)) == len(ids)
    assert all(i[0].islower() and "_" not in i for i in ids), ids

