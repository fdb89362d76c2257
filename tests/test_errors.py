"""The one table of error codes (app/errors.py): its codes are pinned here, so that adding,
removing or renaming one (clients switch on them) is a deliberate edit of this file; every
code the sources use is in it; docs/errors.md is what the table generates."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.errors import BUILT_IN as CODES, HeadroomError, markdown

ROOT = Path(__file__).resolve().parents[1]

# Every code and the HTTP status it answers with (None: the status of the framework's error).
PINNED = {
    "malformed_json": 400, "validation_error": 422, "invalid_request": 422,
    "bad_parameter": 422, "clock_jump_too_large": 422, "dry_run_unsupported": 422,
    "payload_too_large": 413, "method_not_allowed": 405, "http_error": None,
    "unauthorized": 401, "forbidden": 403,
    "not_found": 404, "cluster_not_found": 404, "unknown_job_type": 404, "unknown_job": 404,
    "unknown_server": 404, "unknown_deployment": 404, "what_if_not_found": 404,
    "unknown_tenant": 404,
    "too_many_what_ifs": 409,
    "conflict": 409, "name_taken": 409, "wrong_cluster_kind": 409,
    "idempotency_key_reused": 409, "job_already_known": 409, "job_not_running": 409,
    "deployment_exists": 409, "time_went_backwards": 409, "period_conflict": 409,
    "precondition_failed": 412,
    "rate_limited": 429, "concurrency_limited": 429,
    "cluster_busy": 503, "shutting_down": 503, "database_unavailable": 503,
    "state_divergence": 500, "database_went_backwards": 500, "internal_error": 500,
}

# Where the sources name a code: a class's ``code = "..."``, a problem made from the table
# (``coded("...")``, ``CODES["..."]``), the framework's HTTP errors, a comparison with a code.
USES = [re.compile(p) for p in (
    r'\bcode\s*=\s*"([a-z_]+)"', r'\bcoded\(\s*"([a-z_]+)"', r'\bCODES\["([a-z_]+)"\]',
    r'\.code\s*[!=]=\s*"([a-z_]+)"', r'HTTP_CODES\.get\([^)]*"([a-z_]+)"\)',
    r'HTTP_CODES = \{[^}]*\}')]


def _sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "app").rglob("*.py")}


def _used_codes() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for path, text in _sources().items():
        for pattern in USES:
            for m in pattern.finditer(text):
                found = re.findall(r'"([a-z_]+)"', m.group(0)) if not m.groups() else [m[1]]
                for code in found:
                    used.setdefault(code, set()).add(path)
    return used


def test_the_codes_are_the_pinned_ones_with_their_statuses():
    assert {code: e.status for code, e in CODES.items()} == PINNED


def test_every_entry_has_a_title_and_a_meaning():
    for e in CODES.values():
        assert e.title and e.meaning.endswith("."), e.code
        assert len(set(e.titles)) == len(e.titles), e.code


def test_every_code_the_sources_use_is_in_the_table():
    used = _used_codes()
    assert {"unknown_job_type", "cluster_busy", "malformed_json", "method_not_allowed",
            "http_error", "idempotency_key_reused"} <= set(used)  # the scan sees each form
    unknown = {code: paths for code, paths in used.items() if code not in CODES}
    assert not unknown, unknown


def test_no_problem_document_is_made_from_an_inline_code():
    """A problem document's code, status and title come from an error class or the table,
    never from literals at the call (app/api/problems.py's ``coded`` for the framework's)."""
    for path, text in _sources().items():
        assert not re.search(r'\bproblem\(\s*\d', text), path


def test_a_class_with_a_code_outside_the_table_is_refused():
    with pytest.raises(KeyError):
        type("Bogus", (HeadroomError,), {"code": "no_such_code"})
    with pytest.raises(TypeError):
        type("Retitled", (HeadroomError,), {"code": "conflict", "title": "Some other title"})


def test_each_class_answers_its_codes_status_and_title():
    import app.families.registry  # noqa: F401 - every family's refusals loaded

    def every(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every(sub)

    classes = [c for c in every(HeadroomError) if c.__module__.startswith("app.")]
    assert len(classes) > 30
    for cls in classes:
        entry = CODES[cls.code]
        assert cls.status == entry.status and cls.title in entry.titles, cls


def test_the_openapi_document_names_codes_under_their_status():
    """The response descriptions name some codes (wrong_cluster_kind under 409, rate_limited
    under 429...): each named code is in the table, with that status."""
    doc = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    named = 0
    for path in doc["paths"].values():
        for op in path.values():
            for status, resp in op.get("responses", {}).items():
                for word in re.findall(r"[a-z]+(?:_[a-z]+)+", resp.get("description", "")):
                    if word in CODES:
                        assert CODES[word].status == int(status), (word, status)
                        named += 1
    assert named
    problem = doc["components"]["schemas"]["Problem"]["properties"]
    for prop in problem.values():
        for word in re.findall(r"^([a-z]+(?:_[a-z]+)+):", prop.get("description", "")):
            assert word in CODES, word


def test_docs_errors_md_is_what_the_table_generates():
    out = subprocess.run([sys.executable, "-m", "app.errors", "--markdown"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out == markdown()
    assert (ROOT / "docs" / "errors.md").read_text() == out, \
        "docs/errors.md is stale: python -m app.errors --markdown > docs/errors.md"
    for code in CODES:
        assert f"| `{code}` |" in out, code
